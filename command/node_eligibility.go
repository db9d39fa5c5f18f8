package command

import (
	"fmt"
	"strings"
)

// NodeEligibilityCommand makes a node eligible, or ineligible, for new
// placements.
type NodeEligibilityCommand struct{ Meta }

func (c *NodeEligibilityCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover node eligibility [options] <node>

  Toggles whether the scheduler may place new allocations on a node, given
  its ID or a unique prefix of one. Allocations already on the node keep
  running either way. A draining node cannot be made eligible: cancel the
  drain instead.
` + clientOptionsHelp + `
Node Eligibility Options:

  -enable
    Make the node eligible for scheduling.

  -disable
    Make the node ineligible for scheduling.
`)
}

func (c *NodeEligibilityCommand) Synopsis() string {
	return "Toggle scheduling eligibility for a given node"
}

func (c *NodeEligibilityCommand) Run(args []string) int {
	var enable, disable bool
	fs := c.ClientFlagSet("node eligibility")
	fs.BoolVar(&enable, "enable", false, "")
	fs.BoolVar(&disable, "disable", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if enable == disable {
		return usageError(c.Ui, "node eligibility", "Exactly one of -enable and -disable is required")
	}
	if fs.NArg() != 1 {
		return usageError(c.Ui, "node eligibility", "This command takes one argument: <node>")
	}
	client, node, ok := c.clientAndNode(fs.Arg(0))
	if !ok {
		return exitError
	}
	if _, err := client.Nodes().ToggleEligibility(node.ID, enable, nil); err != nil {
		c.Ui.Error(apiErrorLine(client, "updating scheduling eligibility", err))
		return exitError
	}
	if enable {
		c.Ui.Output(fmt.Sprintf("Node %q scheduling eligibility set: eligible for scheduling", node.ID))
	} else {
		c.Ui.Output(fmt.Sprintf("Node %q scheduling eligibility set: ineligible for scheduling", node.ID))
	}
	return exitOK
}

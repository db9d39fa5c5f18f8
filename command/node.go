package command

import (
	"strings"

	"github.com/hashicorp/cli"
)

// NodeCommand is the parent of every "node ..." command; alone it prints
// help.
type NodeCommand struct{ Meta }

func (c *NodeCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover node <subcommand> [options] [args]

  Interact with nodes: the machines whose clients run allocations.

  List the nodes, or show one:

      $ drover node status
      $ drover node status <node>

  Run "drover node <subcommand> -h" for help on a subcommand.
`)
}

func (c *NodeCommand) Synopsis() string { return "Interact with nodes" }

func (c *NodeCommand) Run(args []string) int { return cli.RunResultHelp }

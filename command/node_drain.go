package command

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/drover-io/drover/api"
)

// defaultDrainDeadline is how long a drain may take unless told otherwise.
const defaultDrainDeadline = time.Hour

// drainMonitorWait is the longest a drain monitor's blocking query waits
// before it looks at the node again.
const drainMonitorWait = time.Second

// NodeDrainCommand starts or cancels the drain of a node.
type NodeDrainCommand struct{ Meta }

func (c *NodeDrainCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover node drain [options] <node>

  Drains a node, given its ID or a unique prefix of one: the node becomes
  ineligible for new placements, service allocations are migrated to other
  nodes, batch allocations are left to finish, and system allocations stop
  last. Once the deadline passes, whatever still runs is stopped. A node
  stays ineligible after its drain completes; make it eligible again with
  "drover node eligibility -enable".

  Unless -detach is given, the command follows the drain until it
  completes.
` + clientOptionsHelp + `
Node Drain Options:

  -enable
    Start draining the node.

  -disable
    Cancel the drain of the node.

  -deadline <duration>
    How long the drain may take before the remaining allocations are
    stopped, such as "30m". Defaults to 1h.

  -force
    Stop every allocation at once, with no deadline to wait for.

  -no-deadline
    Never stop allocations: wait for batch work to finish, however long.

  -ignore-system
    Leave system allocations running on the node.

  -keep-ineligible
    With -disable, leave the node ineligible for scheduling.

  -detach
    Return as soon as the drain is set instead of following it.

  -yes
    Do not ask for confirmation.
`)
}

func (c *NodeDrainCommand) Synopsis() string { return "Toggle drain mode on a given node" }

// drainOptions are the flags of "node drain".
type drainOptions struct {
	enable, disable, force, noDeadline, ignoreSystem, keepIneligible, detach, yes bool
	deadline                                                                      time.Duration
	deadlineSet                                                                   bool
}

func (c *NodeDrainCommand) Run(args []string) int {
	var o drainOptions
	fs := c.ClientFlagSet("node drain")
	fs.BoolVar(&o.enable, "enable", false, "")
	fs.BoolVar(&o.disable, "disable", false, "")
	fs.DurationVar(&o.deadline, "deadline", defaultDrainDeadline, "")
	fs.BoolVar(&o.force, "force", false, "")
	fs.BoolVar(&o.noDeadline, "no-deadline", false, "")
	fs.BoolVar(&o.ignoreSystem, "ignore-system", false, "")
	fs.BoolVar(&o.keepIneligible, "keep-ineligible", false, "")
	fs.BoolVar(&o.detach, "detach", false, "")
	fs.BoolVar(&o.yes, "yes", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "deadline" {
			o.deadlineSet = true
		}
	})
	if problem := o.problem(); problem != "" {
		c.Ui.Error(problem)
		c.Ui.Error(`For additional help try 'drover node drain -h'`)
		return exitError
	}
	if fs.NArg() != 1 {
		return usageError(c.Ui, "node drain", "This command takes one argument: <node>")
	}
	client, node, ok := c.clientAndNode(fs.Arg(0))
	if !ok {
		return exitError
	}

	if o.disable {
		if _, err := client.Nodes().UpdateDrain(node.ID, nil, !o.keepIneligible, nil); err != nil {
			c.Ui.Error(apiErrorLine(client, "updating drain", err))
			return exitError
		}
		c.Ui.Output(fmt.Sprintf("Node %q drain strategy unset", node.ID))
		return exitOK
	}
	if !o.yes {
		code, proceed := c.confirm(confirmation{
			question:  fmt.Sprintf("Are you sure you want to enable drain mode for node %q? [y/N]", node.ID),
			notDone:   "the node was not drained",
			skipHint:  "use -yes to drain it without asking",
			cancelled: "Canceling drain",
		})
		if !proceed {
			return code
		}
	}
	// What ran before the drain, so that the monitor can tell what the
	// drain stopped however fast it goes.
	before, _, err := client.Nodes().Allocations(node.ID, nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "querying node allocations", err))
		return exitError
	}
	if _, err := client.Nodes().UpdateDrain(node.ID, o.spec(), false, nil); err != nil {
		c.Ui.Error(apiErrorLine(client, "updating drain", err))
		return exitError
	}
	c.Ui.Output(fmt.Sprintf("Node %q drain strategy set", node.ID))
	if o.detach {
		return exitOK
	}
	seen := make(map[string]string, len(before))
	for _, a := range before {
		seen[a.ID] = drainState(a)
	}
	ctx, stop := interruptContext()
	defer stop()
	return c.monitor(ctx, client, node.ID, seen)
}

// problem says, as a sentence for the user, which flags contradict each
// other; it is empty when none do.
func (o *drainOptions) problem() string {
	switch {
	case o.enable == o.disable:
		return "Exactly one of -enable and -disable is required"
	case o.disable && (o.force || o.noDeadline || o.deadlineSet || o.ignoreSystem):
		return "-deadline, -force, -no-deadline and -ignore-system only go with -enable"
	case o.enable && o.keepIneligible:
		return "-keep-ineligible only goes with -disable"
	case o.force && o.noDeadline, o.force && o.deadlineSet, o.noDeadline && o.deadlineSet:
		return "Only one of -deadline, -force and -no-deadline may be given"
	case o.deadline <= 0:
		return fmt.Sprintf("-deadline must be positive, got %s", o.deadline)
	}
	return ""
}

// spec is the drain the flags ask for: a negative deadline stops
// everything at once, zero never does.
func (o *drainOptions) spec() *api.DrainSpec {
	spec := &api.DrainSpec{Deadline: o.deadline, IgnoreSystemJobs: o.ignoreSystem}
	switch {
	case o.force:
		spec.Deadline = -1
	case o.noDeadline:
		spec.Deadline = 0
	}
	return spec
}

// monitor follows a drain until the node no longer drains, reporting the
// allocations it marks for migration and those that stop.
func (c *NodeDrainCommand) monitor(ctx context.Context, client *api.Client, nodeID string, seen map[string]string) int {
	var index uint64
	for {
		q := (&api.QueryOptions{WaitIndex: index, WaitTime: drainMonitorWait}).WithContext(ctx)
		allocs, qm, err := client.Nodes().Allocations(nodeID, q)
		if err != nil {
			return c.monitorFailed(ctx, client, err)
		}
		index = qm.LastIndex
		for _, a := range allocs {
			c.reportAlloc(a, seen)
		}
		node, _, err := client.Nodes().Info(nodeID, (&api.QueryOptions{}).WithContext(ctx))
		if err != nil {
			return c.monitorFailed(ctx, client, err)
		}
		if !node.Drain {
			// The last stops may have landed between the two reads above:
			// read the allocations once more so none goes unreported.
			allocs, _, err := client.Nodes().Allocations(nodeID, (&api.QueryOptions{}).WithContext(ctx))
			if err != nil {
				return c.monitorFailed(ctx, client, err)
			}
			for _, a := range allocs {
				c.reportAlloc(a, seen)
			}
			c.Ui.Output(fmt.Sprintf("Node %q drain complete", nodeID))
			return exitOK
		}
	}
}

// Allocation states as the drain monitor reports them.
const (
	drainLive      = "live"
	drainMigrating = "migrating"
	drainStopped   = "stopped"
)

func drainState(a *api.Allocation) string {
	switch {
	case a.DesiredStatus != "run" || a.ClientStatus == "complete" || a.ClientStatus == "failed" || a.ClientStatus == "lost":
		return drainStopped
	case isMarkedToMigrate(a):
		return drainMigrating
	}
	return drainLive
}

func isMarkedToMigrate(a *api.Allocation) bool {
	return a.DesiredTransition.Migrate != nil && *a.DesiredTransition.Migrate
}

// reportAlloc prints what changed for an allocation on the draining node
// since it was last seen: marked for migration, stopped. Allocations that
// appear already stopped were not the drain's doing.
func (c *NodeDrainCommand) reportAlloc(a *api.Allocation, seen map[string]string) {
	state := drainState(a)
	prev, known := seen[a.ID]
	seen[a.ID] = state
	if prev == state || (!known && state == drainStopped) {
		return
	}
	if isMarkedToMigrate(a) && prev != drainMigrating {
		c.Ui.Output(fmt.Sprintf("Alloc %q marked for migration", a.ID))
	}
	if state == drainStopped {
		c.Ui.Output(fmt.Sprintf("Alloc %q has stopped", a.ID))
	}
}

func (c *NodeDrainCommand) monitorFailed(ctx context.Context, client *api.Client, err error) int {
	if ctx.Err() != nil {
		c.Ui.Output("Stopped following the drain; it goes on")
		return exitInterrupted
	}
	c.Ui.Error(apiErrorLine(client, "following drain", err))
	return exitError
}

package command

import (
	"strings"

	"github.com/hashicorp/cli"
)

// AllocCommand is the parent of every "alloc ..." command; alone it prints
// help.
type AllocCommand struct{ Meta }

func (c *AllocCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover alloc <subcommand> [options] [args]

  Interact with allocations: the task groups the scheduler placed on nodes.

  Look at an allocation and its tasks' events:

      $ drover alloc status <alloc>

  Read a task's output, or follow it:

      $ drover alloc logs <alloc> <task>
      $ drover alloc logs -stderr -f <alloc> <task>

  Stop, restart or signal it:

      $ drover alloc stop <alloc>
      $ drover alloc restart <alloc>
      $ drover alloc signal -s SIGHUP <alloc> <task>

  Show its service checks' latest results:

      $ drover alloc checks <alloc>

  Run a command in one of its tasks:

      $ drover alloc exec -task <task> <alloc> /bin/sh

  Move its max_run_duration deadline:

      $ drover alloc deadline <alloc> +30m

  Run "drover alloc <subcommand> -h" for help on a subcommand.
`)
}

func (c *AllocCommand) Synopsis() string { return "Interact with allocations" }

func (c *AllocCommand) Run(args []string) int { return cli.RunResultHelp }

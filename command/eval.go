package command

import (
	"strings"

	"github.com/hashicorp/cli"
)

// EvalCommand is the parent of every "eval ..." command; alone it prints
// help.
type EvalCommand struct{ Meta }

func (c *EvalCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover eval <subcommand> [options] [args]

  Interact with evaluations: the scheduler's decisions to (re)consider
  where a job's allocations run. Every job submission, stop or node change
  creates one.

  List the evaluations, or show one:

      $ drover eval status
      $ drover eval status <eval>

  Run "drover eval <subcommand> -h" for help on a subcommand.
`)
}

func (c *EvalCommand) Synopsis() string { return "Interact with evaluations" }

func (c *EvalCommand) Run(args []string) int { return cli.RunResultHelp }

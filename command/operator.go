package command

import (
	"strings"

	"github.com/hashicorp/cli"
)

// OperatorCommand is the parent of every "operator ..." command; alone it
// prints help.
type OperatorCommand struct{ Meta }

func (c *OperatorCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover operator <subcommand> [options] [args]

  Tools for the people who run a Drover cluster.

  Read an agent's metrics:

      $ drover operator metrics
      $ drover operator metrics -format prometheus

  Run "drover operator <subcommand> -h" for help on a subcommand.
`)
}

func (c *OperatorCommand) Synopsis() string { return "Tools for operators of the cluster" }

func (c *OperatorCommand) Run(args []string) int { return cli.RunResultHelp }

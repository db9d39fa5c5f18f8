package command

import (
	"strings"

	"github.com/hashicorp/cli"
)

// SystemCommand is the parent of the "system ..." commands; alone it
// prints help.
type SystemCommand struct{ Meta }

func (c *SystemCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover system <subcommand> [options]

  Maintains the cluster's state: garbage collection and job summaries.

  Collect garbage now:

      $ drover system gc

  Run "drover system <subcommand> -h" for help on a subcommand.
`)
}

func (c *SystemCommand) Synopsis() string { return "Interact with the system API" }

func (c *SystemCommand) Run(args []string) int { return cli.RunResultHelp }

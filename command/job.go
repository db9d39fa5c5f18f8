package command

import (
	"strings"

	"github.com/hashicorp/cli"
)

// JobCommand is the parent of every "job ..." command; alone it prints help.
type JobCommand struct{ Meta }

func (c *JobCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover job <subcommand> [options] [args]

  Interact with jobs: write an example, validate, plan, run, inspect and stop them.

  Write an example job file:

      $ drover job init

  Validate it, see what running it would change, and run it:

      $ drover job validate example.nomad.hcl
      $ drover job plan example.nomad.hcl
      $ drover job run example.nomad.hcl

  Follow it, look at it and its versions, and stop it:

      $ drover job status example
      $ drover job inspect example
      $ drover job history example
      $ drover job stop example

  Run "drover job <subcommand> -h" for help on a subcommand.
`)
}

func (c *JobCommand) Synopsis() string { return "Interact with jobs" }

func (c *JobCommand) Run(args []string) int { return cli.RunResultHelp }

package command

import (
	"strings"

	"github.com/hashicorp/cli"
)

// JobPeriodicCommand is the parent of the "job periodic ..." commands;
// alone it prints help.
type JobPeriodicCommand struct{ Meta }

func (c *JobPeriodicCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover job periodic <subcommand> [options] [args]

  Interact with periodic jobs.

  Launch a periodic job now, outside its schedule:

      $ drover job periodic force <job>

  Run "drover job periodic <subcommand> -h" for help on a subcommand.
`)
}

func (c *JobPeriodicCommand) Synopsis() string { return "Interact with periodic jobs" }

func (c *JobPeriodicCommand) Run(args []string) int { return cli.RunResultHelp }

package command

import (
	"strings"

	"github.com/hashicorp/cli"
)

// ServerCommand is the parent of every "server ..." command; alone it
// prints help.
type ServerCommand struct{ Meta }

func (c *ServerCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover server <subcommand> [options] [args]

  Interact with the servers of the cluster.

  List the servers and see which one leads:

      $ drover server members

  Run "drover server <subcommand> -h" for help on a subcommand.
`)
}

func (c *ServerCommand) Synopsis() string { return "Interact with servers" }

func (c *ServerCommand) Run(args []string) int { return cli.RunResultHelp }

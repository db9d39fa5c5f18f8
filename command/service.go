package command

import (
	"strings"

	"github.com/hashicorp/cli"
)

// ServiceCommand is the parent of every "service ..." command; alone it
// prints help.
type ServiceCommand struct{ Meta }

func (c *ServiceCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover service <subcommand> [options] [args]

  Interact with the services the clients registered for their running
  allocations (service blocks with the nomad provider).

      $ drover service list
      $ drover service info web
      $ drover service delete web _nomad-task-...

  Run "drover service <subcommand> -h" for help on a subcommand.
`)
}

func (c *ServiceCommand) Synopsis() string { return "Interact with registered services" }

func (c *ServiceCommand) Run(args []string) int { return cli.RunResultHelp }

package command

import (
	"strings"

	"github.com/hashicorp/cli"
)

// DeploymentCommand is the parent of every "deployment ..." command;
// alone it prints help.
type DeploymentCommand struct{ Meta }

func (c *DeploymentCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover deployment <subcommand> [options] [args]

  Interact with deployments: the rollout of a job version whose groups
  have an update block, max_parallel allocations at a time, each step
  waiting for the previous one to be healthy.

  List the deployments, show one, or act on it:

      $ drover deployment list
      $ drover deployment status <deployment>
      $ drover deployment pause <deployment>
      $ drover deployment resume <deployment>
      $ drover deployment fail <deployment>

  Run "drover deployment <subcommand> -h" for help on a subcommand.
`)
}

func (c *DeploymentCommand) Synopsis() string { return "Interact with deployments" }

func (c *DeploymentCommand) Run(args []string) int { return cli.RunResultHelp }

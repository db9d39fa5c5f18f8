package command

import (
	"strings"

	"github.com/hashicorp/cli"
)

// OperatorRootCommand is the parent of the "operator root ..." commands;
// alone it prints help.
type OperatorRootCommand struct{ Meta }

func (c *OperatorRootCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover operator root <subcommand> [options] [args]

  Manages the servers' root keys, which sign workload identities.

  List the keys of the keyring:

      $ drover operator root keyring list

  Run "drover operator root <subcommand> -h" for help on a subcommand.
`)
}

func (c *OperatorRootCommand) Synopsis() string { return "Manage the servers' root keys" }

func (c *OperatorRootCommand) Run(args []string) int { return cli.RunResultHelp }

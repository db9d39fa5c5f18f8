package command

import (
	"strings"

	"github.com/hashicorp/cli"
)

// VarCommand is the parent of every "var ..." command; alone it prints
// help.
type VarCommand struct{ Meta }

func (c *VarCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover var <subcommand> [options] [args]

  Interact with Nomad Variables: key/value items stored, encrypted, at
  file-like paths of a namespace, which tasks read in their templates.

      $ drover var put secret/db user=app password=@pw.txt
      $ drover var get -item password secret/db
      $ drover var list secret/
      $ drover var purge secret/db
      $ drover var lock locks/nightly ./nightly.sh

  Run "drover var <subcommand> -h" for help on a subcommand.
`)
}

func (c *VarCommand) Synopsis() string { return "Interact with variables" }

func (c *VarCommand) Run(args []string) int { return cli.RunResultHelp }

package command

import (
	"strings"

	"github.com/hashicorp/cli"
)

// NamespaceCommand is the parent of every "namespace ..." command; alone
// it prints help.
type NamespaceCommand struct{ Meta }

func (c *NamespaceCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover namespace <subcommand> [options] [args]

  Interact with namespaces, which partition jobs and what derives from them
  (evaluations, allocations), and which ACL policies grant capabilities in.
  The default namespace always exists.

      $ drover namespace apply -description "QA" qa
      $ drover namespace list
      $ drover namespace status qa
      $ drover namespace delete qa

  Run "drover namespace <subcommand> -h" for help on a subcommand.
`)
}

func (c *NamespaceCommand) Synopsis() string { return "Interact with namespaces" }

func (c *NamespaceCommand) Run(args []string) int { return cli.RunResultHelp }

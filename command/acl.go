package command

import (
	"strings"

	"github.com/hashicorp/cli"
)

// ACLCommand is the parent of every "acl ..." command; alone it prints help.
type ACLCommand struct{ Meta }

func (c *ACLCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover acl <subcommand> [options] [args]

  Interact with the ACL system: bootstrap it, and manage its policies and
  tokens. Agents check tokens once acl { enabled = true } is set on each.

  Bootstrap the ACL system, once, and keep the management token it prints:

      $ drover acl bootstrap

  Write a policy and a token that holds it:

      $ drover acl policy apply -description "Read only" readonly readonly.hcl
      $ drover acl token create -name dev -policy readonly

  Run "drover acl <subcommand> -h" for help on a subcommand.
`)
}

func (c *ACLCommand) Synopsis() string { return "Interact with ACL policies and tokens" }

func (c *ACLCommand) Run(args []string) int { return cli.RunResultHelp }

// ACLPolicyCommand is the parent of the "acl policy ..." commands.
type ACLPolicyCommand struct{ Meta }

func (c *ACLPolicyCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover acl policy <subcommand> [options] [args]

  Interact with ACL policies: named sets of rules in Nomad's policy
  language, which tokens hold by name.

      $ drover acl policy apply <name> <path>
      $ drover acl policy list
      $ drover acl policy info <name>
      $ drover acl policy delete <name>

  Run "drover acl policy <subcommand> -h" for help on a subcommand.
`)
}

func (c *ACLPolicyCommand) Synopsis() string { return "Interact with ACL policies" }

func (c *ACLPolicyCommand) Run(args []string) int { return cli.RunResultHelp }

// ACLTokenCommand is the parent of the "acl token ..." commands.
type ACLTokenCommand struct{ Meta }

func (c *ACLTokenCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover acl token <subcommand> [options] [args]

  Interact with ACL tokens. A token's accessor ID names it; its secret ID
  is what requests send (-token, $DROVER_TOKEN, $NOMAD_TOKEN).

      $ drover acl token create -name <name> -policy <policy>
      $ drover acl token list
      $ drover acl token info <accessor_id>
      $ drover acl token update -policy <policy> <accessor_id>
      $ drover acl token delete <accessor_id>
      $ drover acl token self

  Run "drover acl token <subcommand> -h" for help on a subcommand.
`)
}

func (c *ACLTokenCommand) Synopsis() string { return "Interact with ACL tokens" }

func (c *ACLTokenCommand) Run(args []string) int { return cli.RunResultHelp }

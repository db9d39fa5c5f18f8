package command

import (
	"flag"
	"strings"
)

// ACLTokenUpdateCommand changes an ACL token.
type ACLTokenUpdateCommand struct{ Meta }

func (c *ACLTokenUpdateCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover acl token update [options] <accessor_id>

  Changes a token's name, policies or global flag; what is not given stays
  as it is. Its secret, type and expiry never change. It needs a management
  token.
` + clientOptionsHelp + `
Update Options:

  -name=<name>
    The token's new name.

  -policy=<name>
    A policy the token is to hold, replacing those it holds. Repeatable.

  -global=<true|false>
    Whether the token is global.

  -json
    Print the token as JSON.
`)
}

func (c *ACLTokenUpdateCommand) Synopsis() string { return "Update an existing ACL token" }

func (c *ACLTokenUpdateCommand) Run(args []string) int {
	var name string
	var global, asJSON bool
	var policies policyFlag
	fs := c.ClientFlagSet("acl token update")
	fs.StringVar(&name, "name", "", "")
	fs.Var(&policies, "policy", "")
	fs.BoolVar(&global, "global", false, "")
	fs.BoolVar(&asJSON, "json", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 1 {
		return usageError(c.Ui, "acl token update", "This command takes one argument: <accessor_id>")
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	client, token, ok := c.clientAndToken(fs.Arg(0))
	if !ok {
		return exitError
	}
	if set["name"] {
		token.Name = name
	}
	if set["policy"] {
		token.Policies = policies
	}
	if set["global"] {
		token.Global = global
	}
	// What never changes goes back as it came, or not at all.
	token.ExpirationTTL = 0
	updated, _, err := client.ACLTokens().Update(token, nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "updating ACL token", err))
		return exitError
	}
	return printToken(c.Ui, updated, asJSON)
}

package command

import (
	"strings"
	"time"

	"github.com/drover-io/drover/api"
)

// ACLTokenCreateCommand creates an ACL token.
type ACLTokenCreateCommand struct{ Meta }

func (c *ACLTokenCreateCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover acl token create [options]

  Creates an ACL token and prints it, secret ID included. It needs a
  management token.
` + clientOptionsHelp + `
Create Options:

  -name=<name>
    A name for the token.

  -type=<client|management>
    The token's type (default client). A management token may do
    everything; a client token what its policies grant.

  -policy=<name>
    A policy the token holds. Repeatable; a client token needs at least one.

  -global
    Mark the token global, as Nomad does (a Drover cluster is one region).

  -ttl=<duration>
    Make the token expire after this long, such as "8h".

  -json
    Print the token as JSON.
`)
}

func (c *ACLTokenCreateCommand) Synopsis() string { return "Create a new ACL token" }

func (c *ACLTokenCreateCommand) Run(args []string) int {
	var name, tokenType string
	var global, asJSON bool
	var ttl time.Duration
	var policies policyFlag
	fs := c.ClientFlagSet("acl token create")
	fs.StringVar(&name, "name", "", "")
	fs.StringVar(&tokenType, "type", api.ACLClientToken, "")
	fs.Var(&policies, "policy", "")
	fs.BoolVar(&global, "global", false, "")
	fs.DurationVar(&ttl, "ttl", 0, "")
	fs.BoolVar(&asJSON, "json", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 0 {
		return usageError(c.Ui, "acl token create", "This command takes no arguments")
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	token, _, err := client.ACLTokens().Create(&api.ACLToken{
		Name: name, Type: tokenType, Policies: policies, Global: global, ExpirationTTL: ttl,
	}, nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "creating ACL token", err))
		return exitError
	}
	return printToken(c.Ui, token, asJSON)
}

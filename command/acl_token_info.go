package command

import (
	"strings"
)

// ACLTokenInfoCommand shows one ACL token.
type ACLTokenInfoCommand struct{ Meta }

func (c *ACLTokenInfoCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover acl token info [options] <accessor_id>

  Shows an ACL token, secret ID included. A management token reads any
  token; another token only itself.
` + clientOptionsHelp + `
Info Options:

  -json
    Print the token as JSON.
`)
}

func (c *ACLTokenInfoCommand) Synopsis() string { return "Fetch information on an ACL token" }

func (c *ACLTokenInfoCommand) Run(args []string) int {
	var asJSON bool
	fs := c.ClientFlagSet("acl token info")
	fs.BoolVar(&asJSON, "json", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 1 {
		return usageError(c.Ui, "acl token info", "This command takes one argument: <accessor_id>")
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	token, _, err := client.ACLTokens().Info(fs.Arg(0), nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "fetching ACL token", err))
		return exitError
	}
	return printToken(c.Ui, token, asJSON)
}

package command

import (
	"strings"

	"github.com/drover-io/drover/api"
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
	_, token, ok := c.clientAndToken(fs.Arg(0))
	if !ok {
		return exitError
	}
	return printToken(c.Ui, token, asJSON)
}

// clientAndToken is apiClient, then the token of the accessor ID: for the
// commands whose argument is a token. False once either has told the user
// why not.
func (m *Meta) clientAndToken(accessorID string) (*api.Client, *api.ACLToken, bool) {
	client, ok := m.apiClient()
	if !ok {
		return nil, nil, false
	}
	token, _, err := client.ACLTokens().Info(accessorID, nil)
	if err != nil {
		m.Ui.Error(apiErrorLine(client, "fetching ACL token", err))
		return nil, nil, false
	}
	return client, token, true
}

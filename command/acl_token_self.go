package command

import (
	"strings"
)

// ACLTokenSelfCommand shows the token the command is run with.
type ACLTokenSelfCommand struct{ Meta }

func (c *ACLTokenSelfCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover acl token self [options]

  Shows the token this command runs with (-token, $DROVER_TOKEN or
  $NOMAD_TOKEN).
` + clientOptionsHelp + `
Self Options:

  -json
    Print the token as JSON.
`)
}

func (c *ACLTokenSelfCommand) Synopsis() string { return "Lookup self ACL token" }

func (c *ACLTokenSelfCommand) Run(args []string) int {
	var asJSON bool
	fs := c.ClientFlagSet("acl token self")
	fs.BoolVar(&asJSON, "json", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 0 {
		return usageError(c.Ui, "acl token self", "This command takes no arguments")
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	token, _, err := client.ACLTokens().Self(nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "fetching self token", err))
		return exitError
	}
	return printToken(c.Ui, token, asJSON)
}

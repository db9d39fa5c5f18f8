package command

import (
	"fmt"
	"strings"
	"time"
)

// ACLTokenListCommand lists the ACL tokens.
type ACLTokenListCommand struct{ Meta }

func (c *ACLTokenListCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover acl token list [options]

  Lists every ACL token, without secrets. It needs a management token.
` + clientOptionsHelp + `
List Options:

  -json
    Print the tokens as JSON.
`)
}

func (c *ACLTokenListCommand) Synopsis() string { return "List ACL tokens" }

func (c *ACLTokenListCommand) Run(args []string) int {
	var asJSON bool
	fs := c.ClientFlagSet("acl token list")
	fs.BoolVar(&asJSON, "json", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 0 {
		return usageError(c.Ui, "acl token list", "This command takes no arguments")
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	tokens, _, err := client.ACLTokens().List(nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "retrieving ACL tokens", err))
		return exitError
	}
	switch {
	case asJSON:
		return printJSON(c.Ui, "tokens", tokens)
	case len(tokens) == 0:
		c.Ui.Output("No tokens found")
		return exitOK
	}
	now := time.Now()
	rows := []string{"Name|Type|Global|Accessor ID|Expired"}
	for _, t := range tokens {
		rows = append(rows, fmt.Sprintf("%s|%s|%t|%s|%t", t.Name, t.Type, t.Global, t.AccessorID, tokenExpired(t.ExpirationTime, now)))
	}
	c.Ui.Output(formatList(rows))
	return exitOK
}

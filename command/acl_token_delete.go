package command

import (
	"fmt"
	"strings"
)

// ACLTokenDeleteCommand removes an ACL token.
type ACLTokenDeleteCommand struct{ Meta }

func (c *ACLTokenDeleteCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover acl token delete [options] <accessor_id>

  Deletes an ACL token: its secret stops working at once. It needs a
  management token.
` + clientOptionsHelp)
}

func (c *ACLTokenDeleteCommand) Synopsis() string { return "Delete an existing ACL token" }

func (c *ACLTokenDeleteCommand) Run(args []string) int {
	fs := c.ClientFlagSet("acl token delete")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 1 {
		return usageError(c.Ui, "acl token delete", "This command takes one argument: <accessor_id>")
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	if _, err := client.ACLTokens().Delete(fs.Arg(0), nil); err != nil {
		c.Ui.Error(apiErrorLine(client, "deleting token", err))
		return exitError
	}
	c.Ui.Output(fmt.Sprintf("Token %s successfully deleted", fs.Arg(0)))
	return exitOK
}

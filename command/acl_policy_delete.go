package command

import (
	"fmt"
	"strings"
)

// ACLPolicyDeleteCommand removes an ACL policy.
type ACLPolicyDeleteCommand struct{ Meta }

func (c *ACLPolicyDeleteCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover acl policy delete [options] <name>

  Deletes an ACL policy. Tokens that hold it keep its name, which grants
  nothing until a policy of that name exists again. It needs a management
  token.
` + clientOptionsHelp)
}

func (c *ACLPolicyDeleteCommand) Synopsis() string { return "Delete an ACL policy" }

func (c *ACLPolicyDeleteCommand) Run(args []string) int {
	fs := c.ClientFlagSet("acl policy delete")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 1 {
		return usageError(c.Ui, "acl policy delete", "This command takes one argument: <name>")
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	if _, err := client.ACLPolicies().Delete(fs.Arg(0), nil); err != nil {
		c.Ui.Error(apiErrorLine(client, "deleting ACL policy", err))
		return exitError
	}
	c.Ui.Output(fmt.Sprintf("Successfully deleted %q ACL policy!", fs.Arg(0)))
	return exitOK
}

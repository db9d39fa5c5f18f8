package command

import (
	"strings"
)

// ACLPolicyListCommand lists the ACL policies the caller may see.
type ACLPolicyListCommand struct{ Meta }

func (c *ACLPolicyListCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover acl policy list [options]

  Lists the ACL policies: every one for a management token, those the
  token holds for another.
` + clientOptionsHelp + `
List Options:

  -json
    Print the policies as JSON.
`)
}

func (c *ACLPolicyListCommand) Synopsis() string { return "List ACL policies" }

func (c *ACLPolicyListCommand) Run(args []string) int {
	var asJSON bool
	fs := c.ClientFlagSet("acl policy list")
	fs.BoolVar(&asJSON, "json", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 0 {
		return usageError(c.Ui, "acl policy list", "This command takes no arguments")
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	policies, _, err := client.ACLPolicies().List(nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "retrieving ACL policies", err))
		return exitError
	}
	switch {
	case asJSON:
		return printJSON(c.Ui, "policies", policies)
	case len(policies) == 0:
		c.Ui.Output("No policies found")
		return exitOK
	}
	rows := []string{"Name|Description"}
	for _, p := range policies {
		rows = append(rows, p.Name+"|"+p.Description)
	}
	c.Ui.Output(formatList(rows))
	return exitOK
}

package command

import (
	"fmt"
	"strings"
)

// ACLPolicyInfoCommand shows one ACL policy.
type ACLPolicyInfoCommand struct{ Meta }

func (c *ACLPolicyInfoCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover acl policy info [options] <name>

  Shows an ACL policy and its rules. A management token reads any policy;
  another token the policies it holds.
` + clientOptionsHelp + `
Info Options:

  -json
    Print the policy as JSON.
`)
}

func (c *ACLPolicyInfoCommand) Synopsis() string { return "Fetch info on an ACL policy" }

func (c *ACLPolicyInfoCommand) Run(args []string) int {
	var asJSON bool
	fs := c.ClientFlagSet("acl policy info")
	fs.BoolVar(&asJSON, "json", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 1 {
		return usageError(c.Ui, "acl policy info", "This command takes one argument: <name>")
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	policy, _, err := client.ACLPolicies().Info(fs.Arg(0), nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "querying ACL policy", err))
		return exitError
	}
	if asJSON {
		return printJSON(c.Ui, "policy", policy)
	}
	c.Ui.Output(formatKV([]string{
		"Name|" + policy.Name,
		"Description|" + policy.Description,
		fmt.Sprintf("CreateIndex|%d", policy.CreateIndex),
		fmt.Sprintf("ModifyIndex|%d", policy.ModifyIndex),
	}))
	c.Ui.Output("\nRules\n\n" + strings.TrimRight(policy.Rules, "\n"))
	return exitOK
}

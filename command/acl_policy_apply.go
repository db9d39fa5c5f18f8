package command

import (
	"fmt"
	"strings"

	"github.com/drover-io/drover/api"
)

// ACLPolicyApplyCommand creates or replaces an ACL policy.
type ACLPolicyApplyCommand struct{ Meta }

func (c *ACLPolicyApplyCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover acl policy apply [options] <name> <path>

  Creates or replaces the named policy with the rules in the file at path
  (or stdin for "-"), in Nomad's policy language, as HCL or JSON. Naming
  the policy "anonymous" sets what requests without a token may do. It
  needs a management token.
` + clientOptionsHelp + `
Apply Options:

  -description=<text>
    A description of the policy.
`)
}

func (c *ACLPolicyApplyCommand) Synopsis() string { return "Create or update an ACL policy" }

func (c *ACLPolicyApplyCommand) Run(args []string) int {
	var description string
	fs := c.ClientFlagSet("acl policy apply")
	fs.StringVar(&description, "description", "", "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 2 {
		return usageError(c.Ui, "acl policy apply", "This command takes two arguments: <name> <path>")
	}
	name := fs.Arg(0)
	rules, err := readInput(fs.Arg(1), c.Stdin)
	if err != nil {
		c.Ui.Error(fmt.Sprintf("Error reading policy rules: %v", err))
		return exitError
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	policy := &api.ACLPolicy{Name: name, Description: description, Rules: string(rules)}
	if _, err := client.ACLPolicies().Upsert(policy, nil); err != nil {
		c.Ui.Error(apiErrorLine(client, "writing ACL policy", err))
		return exitError
	}
	c.Ui.Output(fmt.Sprintf("Successfully wrote %q ACL policy!", name))
	return exitOK
}

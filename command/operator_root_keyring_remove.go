package command

import (
	"strings"
)

// OperatorRootKeyringRemoveCommand removes an inactive root key.
type OperatorRootKeyringRemoveCommand struct{ Meta }

func (c *OperatorRootKeyringRemoveCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover operator root keyring remove [options] <key ID>

  Removes an inactive root key; the identities it signed no longer verify.
  The active key cannot be removed: rotate first. The key ID is the full
  UUID ("operator root keyring list -verbose" shows it). It needs a
  management token.
` + clientOptionsHelp + `
Keyring Remove Options:

  -force
    Remove the key even while allocations that started when it was active
    still run: their tasks may hold identities only it verifies.
`)
}

func (c *OperatorRootKeyringRemoveCommand) Synopsis() string { return "Remove an inactive root key" }

func (c *OperatorRootKeyringRemoveCommand) Run(args []string) int {
	var force bool
	fs := c.ClientFlagSet("operator root keyring remove")
	fs.BoolVar(&force, "force", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 1 {
		return usageError(c.Ui, "operator root keyring remove", "This command takes one argument: <key ID>")
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	id := fs.Arg(0)
	if _, err := client.Keyring().Delete(id, force, nil); err != nil {
		c.Ui.Error(apiErrorLine(client, "removing root key", err))
		return exitError
	}
	c.Ui.Output("Removed root key " + id)
	return exitOK
}

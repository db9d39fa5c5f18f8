package command

import (
	"strings"
)

// OperatorRootKeyringListCommand lists the keyring's root keys.
type OperatorRootKeyringListCommand struct{ Meta }

func (c *OperatorRootKeyringListCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover operator root keyring list [options]

  Lists the root keys of the keyring: their IDs, states and creation times,
  never the key material. It needs a management token.
` + clientOptionsHelp + `
Keyring List Options:

  -verbose
    Show full key IDs.

  -json
    Print the keys as JSON.
`)
}

func (c *OperatorRootKeyringListCommand) Synopsis() string { return "List the keyring's root keys" }

func (c *OperatorRootKeyringListCommand) Run(args []string) int {
	var verbose, asJSON bool
	fs := c.ClientFlagSet("operator root keyring list")
	fs.BoolVar(&verbose, "verbose", false, "")
	fs.BoolVar(&asJSON, "json", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 0 {
		return usageError(c.Ui, "operator root keyring list", "This command takes no arguments")
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	keys, _, err := client.Keyring().List(nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "listing root keys", err))
		return exitError
	}
	if asJSON {
		return printJSON(c.Ui, "root keys", keys)
	}
	c.Ui.Output(formatRootKeys(keys, verbose))
	return exitOK
}

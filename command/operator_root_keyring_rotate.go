package command

import (
	"strings"

	"github.com/drover-io/drover/api"
)

// OperatorRootKeyringRotateCommand makes a new active root key.
type OperatorRootKeyringRotateCommand struct{ Meta }

func (c *OperatorRootKeyringRotateCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover operator root keyring rotate [options]

  Makes a new root key, which becomes the active key at once: identities
  are signed, and variables encrypted, with it from then on. The key that
  was active turns inactive and still verifies the identities it signed
  and decrypts the variables it encrypted. It needs a management token.
` + clientOptionsHelp + `
Keyring Rotate Options:

  -full
    Also re-encrypt every variable with the new key before answering, so
    that the older keys encrypt nothing and may be removed.

  -verbose
    Show the full key ID.
`)
}

func (c *OperatorRootKeyringRotateCommand) Synopsis() string {
	return "Make a new active root key"
}

func (c *OperatorRootKeyringRotateCommand) Run(args []string) int {
	var full, verbose bool
	fs := c.ClientFlagSet("operator root keyring rotate")
	fs.BoolVar(&full, "full", false, "")
	fs.BoolVar(&verbose, "verbose", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 0 {
		return usageError(c.Ui, "operator root keyring rotate", "This command takes no arguments")
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	key, _, err := client.Keyring().Rotate(full, nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "rotating the root key", err))
		return exitError
	}
	c.Ui.Output(formatRootKeys([]*api.RootKeyMeta{key}, verbose))
	return exitOK
}

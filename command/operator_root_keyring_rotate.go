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
  are signed with it from then on. The key that was active turns inactive
  and still verifies the identities it signed. It needs a management token.
` + clientOptionsHelp + `
Keyring Rotate Options:

  -full
    Accepted for Nomad's scripts: a full rotation re-encrypts Variables in
    Nomad, and Drover has none, so it is a rotation like any other.

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

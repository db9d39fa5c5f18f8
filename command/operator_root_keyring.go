package command

import (
	"strings"

	"github.com/hashicorp/cli"

	"github.com/drover-io/drover/api"
)

// OperatorRootKeyringCommand is the parent of the "operator root keyring
// ..." commands; alone it prints help.
type OperatorRootKeyringCommand struct{ Meta }

func (c *OperatorRootKeyringCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover operator root keyring <subcommand> [options] [args]

  Manages the keyring: the Ed25519 root keys the servers keep in raft. The
  active key signs the workload identities of tasks; inactive keys still
  verify what they signed until they are removed. These commands need a
  management token.

  List the keys:

      $ drover operator root keyring list

  Make a new active key:

      $ drover operator root keyring rotate

  Remove an inactive key:

      $ drover operator root keyring remove <key ID>

  Run "drover operator root keyring <subcommand> -h" for help on a subcommand.
`)
}

func (c *OperatorRootKeyringCommand) Synopsis() string { return "Manage the keyring's root keys" }

func (c *OperatorRootKeyringCommand) Run(args []string) int { return cli.RunResultHelp }

// formatRootKeys is the table of keys that list and rotate print.
func formatRootKeys(keys []*api.RootKeyMeta, verbose bool) string {
	rows := []string{"Key|State|Create Time"}
	for _, k := range keys {
		rows = append(rows, shortID(k.KeyID, verbose)+"|"+k.State+"|"+formatUnixNano(k.CreateTime))
	}
	return formatList(rows)
}

package command

import (
	"fmt"
	"strings"

	"github.com/drover-io/drover/nomad"
)

// OperatorKeygenCommand prints a new cluster key.
type OperatorKeygenCommand struct{ Meta }

func (c *OperatorKeygenCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover operator keygen

  Prints a new cluster key: 32 random bytes, base64-encoded. Put the same
  key in the encrypt setting of every server of the cluster:

      server {
        encrypt = "<key>"
      }

  Servers prove to each other that they hold the key before they take part
  in raft or join a cluster; the key itself never crosses the network.
`)
}

func (c *OperatorKeygenCommand) Synopsis() string { return "Generate a cluster key" }

func (c *OperatorKeygenCommand) Run(args []string) int {
	fs := c.FlagSet("operator keygen")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() > 0 {
		c.Ui.Error("This command takes no arguments")
		return exitError
	}
	key, err := nomad.GenerateClusterKey()
	if err != nil {
		c.Ui.Error(fmt.Sprintf("Error generating key: %v", err))
		return exitError
	}
	c.Ui.Output(key)
	return exitOK
}

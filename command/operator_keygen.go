package command

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
)

// OperatorKeygenCommand prints a new cluster key, or the registration
// secret of one.
type OperatorKeygenCommand struct{ Meta }

func (c *OperatorKeygenCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover operator keygen [-registration-secret <key>]

  Prints a new cluster key: 32 random bytes, base64-encoded. Put the same
  key in the encrypt setting of every server of the cluster:

      server {
        encrypt = "<key>"
      }

  Servers prove to each other that they hold the key before they take part
  in raft or join a cluster; the key itself never crosses the network.

  With -registration-secret, prints instead the registration secret of the
  given cluster key ("-" reads the key from standard input), for the client
  agents that run no server:

      client {
        registration_secret = "<secret>"
      }

  It lets a client register new nodes and nothing more: the cluster key
  cannot be recovered from it.

Options:

  -registration-secret
    Print the registration secret of the key given as the argument.
`)
}

func (c *OperatorKeygenCommand) Synopsis() string { return "Generate a cluster key" }

func (c *OperatorKeygenCommand) Run(args []string) int {
	var registration bool
	fs := c.FlagSet("operator keygen")
	fs.BoolVar(&registration, "registration-secret", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if !registration {
		if fs.NArg() > 0 {
			c.Ui.Error("This command takes no arguments unless -registration-secret is given")
			return exitError
		}
		key, err := nomadrpc.GenerateClusterKey()
		if err != nil {
			c.Ui.Error(fmt.Sprintf("Error generating key: %v", err))
			return exitError
		}
		c.Ui.Output(key)
		return exitOK
	}
	if fs.NArg() != 1 {
		c.Ui.Error("-registration-secret takes one argument: the cluster key, or - to read it from standard input")
		return exitError
	}
	encoded := fs.Arg(0)
	if encoded == "-" {
		line, err := bufio.NewReader(io.LimitReader(c.Stdin, 1024)).ReadString('\n')
		if err != nil && err != io.EOF {
			c.Ui.Error(fmt.Sprintf("Error reading the key: %v", err))
			return exitError
		}
		encoded = line
	}
	key, err := nomadrpc.ParseClusterKey(encoded)
	if err != nil {
		c.Ui.Error(fmt.Sprintf("Error reading the key: %v", err))
		return exitError
	}
	c.Ui.Output(nomadrpc.EncodeRegistrationSecret(key))
	return exitOK
}

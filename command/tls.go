package command

import (
	"fmt"
	"os"
	"strings"

	"github.com/hashicorp/cli"
)

// TLSCommand is the parent of the "tls ..." commands; alone it prints
// help.
type TLSCommand struct{ Meta }

func (c *TLSCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover tls <subcommand> [options]

  Make a CA and the certificates a cluster's agents and CLI users need for
  TLS (the agent's tls block, the CLI's -ca-cert and -client-cert).

  Make a CA, then a certificate for the servers, the clients and the CLI:

      $ drover tls ca create
      $ drover tls cert create -server
      $ drover tls cert create -client
      $ drover tls cert create -cli

  Run "drover tls <subcommand> -h" for help on a subcommand.
`)
}

func (c *TLSCommand) Synopsis() string { return "Make a CA and certificates for TLS" }

func (c *TLSCommand) Run(args []string) int { return cli.RunResultHelp }

// TLSCACommand is the parent of the "tls ca ..." commands.
type TLSCACommand struct{ Meta }

func (c *TLSCACommand) Help() string {
	return strings.TrimSpace(`
Usage: drover tls ca <subcommand> [options]

  Make the CA that signs a cluster's certificates.

      $ drover tls ca create

  Run "drover tls ca <subcommand> -h" for help on a subcommand.
`)
}

func (c *TLSCACommand) Synopsis() string { return "Make a certificate authority" }

func (c *TLSCACommand) Run(args []string) int { return cli.RunResultHelp }

// TLSCertCommand is the parent of the "tls cert ..." commands.
type TLSCertCommand struct{ Meta }

func (c *TLSCertCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover tls cert <subcommand> [options]

  Make certificates signed by the cluster's CA.

      $ drover tls cert create -server

  Run "drover tls cert <subcommand> -h" for help on a subcommand.
`)
}

func (c *TLSCertCommand) Synopsis() string { return "Make certificates" }

func (c *TLSCertCommand) Run(args []string) int { return cli.RunResultHelp }

// writePair writes a certificate and its key, neither of which may exist
// yet; when the second cannot be written the first goes again.
func writePair(certPath string, cert []byte, keyPath string, key []byte) error {
	for _, p := range []string{certPath, keyPath} {
		if _, err := os.Lstat(p); err == nil {
			return fmt.Errorf("%s already exists; move it away first, or run the command in another directory", p)
		}
	}
	if err := writeNewFile(certPath, cert, 0o644); err != nil {
		return err
	}
	if err := writeNewFile(keyPath, key, 0o600); err != nil {
		os.Remove(certPath)
		return err
	}
	return nil
}

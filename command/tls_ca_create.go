package command

import (
	"fmt"
	"strings"

	"github.com/drover-io/drover/internal/tlsutil"
)

// Default names of the CA's files, in the working directory.
const (
	defaultCAFile    = "drover-agent-ca.pem"
	defaultCAKeyFile = "drover-agent-ca-key.pem"
)

// TLSCACreateCommand makes a self-signed CA.
type TLSCACreateCommand struct{ Meta }

func (c *TLSCACreateCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover tls ca create [options]

  Makes a self-signed certificate authority with an ECDSA P-256 key and
  writes it to ` + defaultCAFile + ` and its key to ` + defaultCAKeyFile + `
  in the working directory. Existing files are never replaced.

  The CA's certificate goes to every agent (tls.ca_file) and CLI user
  (-ca-cert); keep its key where only the people who issue certificates
  can read it.

Options:

  -common-name=<name>
    The CA's common name; a serial number is appended. Defaults to
    "Drover Agent CA".

  -days=<n>
    How many days the CA is valid. Defaults to 1825 (five years).
`)
}

func (c *TLSCACreateCommand) Synopsis() string { return "Make a certificate authority" }

func (c *TLSCACreateCommand) Run(args []string) int {
	fs := c.FlagSet("tls ca create")
	var opts tlsutil.CAOptions
	fs.StringVar(&opts.CommonName, "common-name", "Drover Agent CA", "")
	fs.IntVar(&opts.Days, "days", 1825, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() > 0 {
		c.Ui.Error("This command takes no arguments")
		return exitError
	}
	ca, err := tlsutil.GenerateCA(opts)
	if err != nil {
		c.Ui.Error(fmt.Sprintf("Error creating CA: %v", err))
		return exitError
	}
	if err := writePair(defaultCAFile, ca.Cert, defaultCAKeyFile, ca.Key); err != nil {
		c.Ui.Error(fmt.Sprintf("Error saving CA: %v", err))
		return exitError
	}
	c.Ui.Output("==> CA certificate saved to: " + defaultCAFile)
	c.Ui.Output("==> CA certificate key saved to: " + defaultCAKeyFile)
	return exitOK
}

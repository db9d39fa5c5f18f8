package command

import (
	"fmt"
	"strings"
)

// ACLBootstrapCommand creates the cluster's first management token.
type ACLBootstrapCommand struct{ Meta }

func (c *ACLBootstrapCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover acl bootstrap [options] [<path>]

  Bootstraps the ACL system and prints the management token it creates.
  It works once per cluster: keep the token safe. When every management
  token is lost, the failed bootstrap names a reset index; write it to
  <data_dir>/server/acl-bootstrap-reset on the leader and bootstrap again.

  With a path, the file (or stdin for "-") holds the secret ID the token
  is to have, a UUID; without, the server makes one.
` + clientOptionsHelp + `
Bootstrap Options:

  -json
    Print the token as JSON.
`)
}

func (c *ACLBootstrapCommand) Synopsis() string { return "Bootstrap the ACL system" }

func (c *ACLBootstrapCommand) Run(args []string) int {
	var asJSON bool
	fs := c.ClientFlagSet("acl bootstrap")
	fs.BoolVar(&asJSON, "json", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() > 1 {
		return usageError(c.Ui, "acl bootstrap", "This command takes at most one argument: [<path>]")
	}
	var secret string
	if fs.NArg() == 1 {
		data, err := readInput(fs.Arg(0), c.Stdin)
		if err != nil {
			c.Ui.Error(fmt.Sprintf("Error reading the bootstrap secret: %v", err))
			return exitError
		}
		secret = strings.TrimSpace(string(data))
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	token, _, err := client.ACLTokens().BootstrapOpts(secret, nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "bootstrapping the ACL system", err))
		return exitError
	}
	return printToken(c.Ui, token, asJSON)
}

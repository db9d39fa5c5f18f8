package command

import (
	"fmt"
	"strings"
)

// NamespaceDeleteCommand removes a namespace.
type NamespaceDeleteCommand struct{ Meta }

func (c *NamespaceDeleteCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover namespace delete [options] <namespace>

  Deletes a namespace. The default namespace cannot be deleted, nor one
  that still has jobs: purge them first (drover job stop -purge). It needs
  a management token.
` + clientOptionsHelp)
}

func (c *NamespaceDeleteCommand) Synopsis() string { return "Delete a namespace" }

func (c *NamespaceDeleteCommand) Run(args []string) int {
	fs := c.ClientFlagSet("namespace delete")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 1 {
		return usageError(c.Ui, "namespace delete", "This command takes one argument: <namespace>")
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	if _, err := client.Namespaces().Delete(fs.Arg(0), nil); err != nil {
		c.Ui.Error(apiErrorLine(client, "deleting namespace", err))
		return exitError
	}
	c.Ui.Output(fmt.Sprintf("Successfully deleted namespace %q!", fs.Arg(0)))
	return exitOK
}

package command

import (
	"strings"
)

// NamespaceListCommand lists the namespaces the caller may see.
type NamespaceListCommand struct{ Meta }

func (c *NamespaceListCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover namespace list [options]

  Lists the namespaces the token grants anything in.
` + clientOptionsHelp + `
List Options:

  -json
    Print the namespaces as JSON.
`)
}

func (c *NamespaceListCommand) Synopsis() string { return "List namespaces" }

func (c *NamespaceListCommand) Run(args []string) int {
	var asJSON bool
	fs := c.ClientFlagSet("namespace list")
	fs.BoolVar(&asJSON, "json", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 0 {
		return usageError(c.Ui, "namespace list", "This command takes no arguments")
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	namespaces, _, err := client.Namespaces().List(nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "retrieving namespaces", err))
		return exitError
	}
	switch {
	case asJSON:
		return printJSON(c.Ui, "namespaces", namespaces)
	case len(namespaces) == 0:
		c.Ui.Output("No namespaces found")
		return exitOK
	}
	rows := []string{"Name|Description"}
	for _, ns := range namespaces {
		rows = append(rows, ns.Name+"|"+ns.Description)
	}
	c.Ui.Output(formatList(rows))
	return exitOK
}

package command

import (
	"strings"
)

// ServiceListCommand lists the registered services, by namespace.
type ServiceListCommand struct{ Meta }

func (c *ServiceListCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover service list [options]

  Lists the registered services of the namespace (-namespace "*": of every
  namespace the token may read jobs in), each once with its tags.
` + clientOptionsHelp + `
List Options:

  -json
    Print the services as JSON.
`)
}

func (c *ServiceListCommand) Synopsis() string { return "List registered services" }

func (c *ServiceListCommand) Run(args []string) int {
	var asJSON bool
	fs := c.ClientFlagSet("service list")
	fs.BoolVar(&asJSON, "json", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 0 {
		return usageError(c.Ui, "service list", "This command takes no arguments")
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	list, _, err := client.Services().List(nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "retrieving services", err))
		return exitError
	}
	if asJSON {
		return printJSON(c.Ui, "services", list)
	}
	rows := []string{"Service Name|Namespace|Tags"}
	for _, ns := range list {
		for _, svc := range ns.Services {
			rows = append(rows, svc.ServiceName+"|"+ns.Namespace+"|"+strings.Join(svc.Tags, ","))
		}
	}
	if len(rows) == 1 {
		c.Ui.Output("No service registrations found")
		return exitOK
	}
	c.Ui.Output(formatList(rows))
	return exitOK
}

package command

import (
	"fmt"
	"strings"
)

// ServiceDeleteCommand removes one registration of a service.
type ServiceDeleteCommand struct{ Meta }

func (c *ServiceDeleteCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover service delete [options] <service> <id>

  Deletes one registration of a service, by the ID "drover service info"
  shows. Its client registers it again if the allocation still runs and
  its state changes. It needs submit-job in the namespace.
` + clientOptionsHelp)
}

func (c *ServiceDeleteCommand) Synopsis() string { return "Delete a service registration" }

func (c *ServiceDeleteCommand) Run(args []string) int {
	fs := c.ClientFlagSet("service delete")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 2 {
		return usageError(c.Ui, "service delete", "This command takes two arguments: <service> <id>")
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	if _, err := client.Services().Delete(fs.Arg(0), fs.Arg(1), nil); err != nil {
		c.Ui.Error(apiErrorLine(client, "deleting service registration", err))
		return exitError
	}
	c.Ui.Output(fmt.Sprintf("Successfully deleted service registration %q", fs.Arg(1)))
	return exitOK
}

package command

import (
	"net"
	"strconv"
	"strings"
)

// ServiceInfoCommand shows the registrations of one service.
type ServiceInfoCommand struct{ Meta }

func (c *ServiceInfoCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover service info [options] <service>

  Shows every registration of the service in the namespace: the job and
  allocation that registered it, its address and tags.
` + clientOptionsHelp + `
Info Options:

  -json
    Print the registrations as JSON.
`)
}

func (c *ServiceInfoCommand) Synopsis() string { return "Show the registrations of a service" }

func (c *ServiceInfoCommand) Run(args []string) int {
	var asJSON bool
	fs := c.ClientFlagSet("service info")
	fs.BoolVar(&asJSON, "json", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 1 {
		return usageError(c.Ui, "service info", "This command takes one argument: <service>")
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	regs, _, err := client.Services().Get(fs.Arg(0), nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "retrieving service", err))
		return exitError
	}
	switch {
	case asJSON:
		return printJSON(c.Ui, "service registrations", regs)
	case len(regs) == 0:
		c.Ui.Error("No service registration found for " + strconv.Quote(fs.Arg(0)))
		return exitError
	}
	rows := []string{"ID|Job ID|Address|Tags|Node ID|Alloc ID"}
	for _, r := range regs {
		addr := net.JoinHostPort(r.Address, strconv.Itoa(r.Port))
		rows = append(rows, strings.Join([]string{r.ID, r.JobID, addr, strings.Join(r.Tags, ","), shortID(r.NodeID, false), shortID(r.AllocID, false)}, "|"))
	}
	c.Ui.Output(formatList(rows))
	return exitOK
}

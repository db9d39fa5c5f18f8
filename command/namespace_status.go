package command

import (
	"maps"
	"slices"
	"strings"

	"github.com/drover-io/drover/api"
)

// NamespaceStatusCommand shows one namespace.
type NamespaceStatusCommand struct{ Meta }

func (c *NamespaceStatusCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover namespace status [options] <namespace>

  Shows a namespace: its description, metadata and capabilities.
` + clientOptionsHelp + `
Status Options:

  -json
    Print the namespace as JSON.
`)
}

func (c *NamespaceStatusCommand) Synopsis() string { return "Display a namespace's status" }

func (c *NamespaceStatusCommand) Run(args []string) int {
	var asJSON bool
	fs := c.ClientFlagSet("namespace status")
	fs.BoolVar(&asJSON, "json", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 1 {
		return usageError(c.Ui, "namespace status", "This command takes one argument: <namespace>")
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	ns, _, err := client.Namespaces().Info(fs.Arg(0), nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "retrieving namespace", err))
		return exitError
	}
	if asJSON {
		return printJSON(c.Ui, "namespace", ns)
	}
	c.Ui.Output(formatKV([]string{
		"Name|" + ns.Name,
		"Description|" + ns.Description,
		"Quota|" + ns.Quota,
		"EnabledDrivers|" + joinOrNone(capabilityList(ns.Capabilities, true)),
		"DisabledDrivers|" + joinOrNone(capabilityList(ns.Capabilities, false)),
	}))
	if len(ns.Meta) > 0 {
		rows := make([]string, 0, len(ns.Meta))
		for _, k := range slices.Sorted(maps.Keys(ns.Meta)) {
			rows = append(rows, k+"|"+ns.Meta[k])
		}
		c.Ui.Output("\nMetadata\n" + formatKV(rows))
	}
	if rows := timeLimitRows(ns.TimeLimits); len(rows) > 0 {
		c.Ui.Output("\nTime Limits\n" + formatKV(rows))
	}
	return exitOK
}

// capabilityList is a namespace's enabled (or disabled) task drivers.
func capabilityList(c *api.NamespaceCapabilities, enabled bool) []string {
	switch {
	case c == nil:
		return nil
	case enabled:
		return c.EnabledTaskDrivers
	}
	return c.DisabledTaskDrivers
}

func joinOrNone(values []string) string {
	if len(values) == 0 {
		return "<none>"
	}
	return strings.Join(values, ",")
}

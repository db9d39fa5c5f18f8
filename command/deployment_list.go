package command

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/drover-io/drover/api"
)

// DeploymentListCommand lists the deployments.
type DeploymentListCommand struct{ Meta }

func (c *DeploymentListCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover deployment list [options]

  Lists every deployment, newest first.
` + clientOptionsHelp + `
Deployment List Options:

  -json
    Print the list as JSON.

  -verbose
    Show full IDs.
`)
}

func (c *DeploymentListCommand) Synopsis() string { return "List all deployments" }

func (c *DeploymentListCommand) Run(args []string) int {
	var asJSON, verbose bool
	fs := c.ClientFlagSet("deployment list")
	fs.BoolVar(&asJSON, "json", false, "")
	fs.BoolVar(&verbose, "verbose", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 0 {
		return usageError(c.Ui, "deployment list", "This command takes no arguments")
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	ds, _, err := client.Deployments().List(nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "querying deployments", err))
		return exitError
	}
	slices.SortFunc(ds, func(a, b *api.Deployment) int { return cmp.Compare(b.CreateIndex, a.CreateIndex) })
	switch {
	case asJSON:
		out, err := json.MarshalIndent(ds, "", "    ")
		if err != nil {
			c.Ui.Error(fmt.Sprintf("Error encoding deployments: %v", err))
			return exitError
		}
		c.Ui.Output(string(out))
	case len(ds) == 0:
		c.Ui.Output("No deployments found")
	default:
		c.Ui.Output(deploymentListTable(ds, verbose))
	}
	return exitOK
}

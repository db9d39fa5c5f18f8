package command

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/drover-io/drover/api"
)

// DeploymentStatusCommand shows one deployment.
type DeploymentStatusCommand struct{ Meta }

func (c *DeploymentStatusCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover deployment status [options] <deployment>

  Shows a deployment, given its ID or a unique prefix of one: its job
  version, status, and each group's progress (desired, placed, healthy
  and unhealthy allocations, and its progress deadline).
` + clientOptionsHelp + `
Deployment Status Options:

  -json
    Print the deployment as JSON.

  -verbose
    Show full IDs.
`)
}

func (c *DeploymentStatusCommand) Synopsis() string { return "Display the status of a deployment" }

func (c *DeploymentStatusCommand) Run(args []string) int {
	var asJSON, verbose bool
	fs := c.ClientFlagSet("deployment status")
	fs.BoolVar(&asJSON, "json", false, "")
	fs.BoolVar(&verbose, "verbose", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 1 {
		return usageError(c.Ui, "deployment status", "This command takes one argument: <deployment>")
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	d, ok := lookupDeployment(c.Meta, client, fs.Arg(0), verbose)
	if !ok {
		return exitError
	}
	if asJSON {
		out, err := json.MarshalIndent(d, "", "    ")
		if err != nil {
			c.Ui.Error(fmt.Sprintf("Error encoding deployment: %v", err))
			return exitError
		}
		c.Ui.Output(string(out))
		return exitOK
	}
	c.Ui.Output(formatKV(deploymentRows(d, verbose)))
	if len(d.TaskGroups) > 0 {
		c.Ui.Output("\nDeployed")
		c.Ui.Output(deploymentGroupsTable(d))
	}
	return exitOK
}

// lookupDeployment finds the deployment whose ID is id or starts with it.
func lookupDeployment(m Meta, client *api.Client, id string, verbose bool) (*api.Deployment, bool) {
	ds, _, err := client.Deployments().PrefixList(id)
	if err != nil {
		m.Ui.Error(apiErrorLine(client, "querying deployments", err))
		return nil, false
	}
	stub, ok := resolvePrefix(m.Ui, id, "deployment", ds, func(d *api.Deployment) string { return d.ID },
		func(ambiguous []*api.Deployment) string { return deploymentListTable(ambiguous, verbose) })
	if !ok {
		return nil, false
	}
	d, _, err := client.Deployments().Info(stub.ID, nil)
	if err != nil {
		m.Ui.Error(apiErrorLine(client, "querying deployment", err))
		return nil, false
	}
	return d, true
}

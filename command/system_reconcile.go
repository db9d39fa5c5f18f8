package command

import (
	"strings"

	"github.com/hashicorp/cli"
)

// SystemReconcileCommand is the parent of "system reconcile summaries";
// alone it prints help.
type SystemReconcileCommand struct{ Meta }

func (c *SystemReconcileCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover system reconcile <subcommand> [options]

  Reconciles the cluster's state.

      $ drover system reconcile summaries
`)
}

func (c *SystemReconcileCommand) Synopsis() string { return "Perform system reconciliation tasks" }

func (c *SystemReconcileCommand) Run(args []string) int { return cli.RunResultHelp }

// SystemReconcileSummariesCommand asks the servers to reconcile the job
// summaries.
type SystemReconcileSummariesCommand struct{ Meta }

func (c *SystemReconcileSummariesCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover system reconcile summaries [options]

  Reconciles the summaries of every job, as Nomad's command does. Drover
  derives a job's summary from its allocations whenever it is read, so
  summaries never drift; the command checks the servers answer and that
  the token is a management token.
` + clientOptionsHelp)
}

func (c *SystemReconcileSummariesCommand) Synopsis() string {
	return "Reconciles the summaries of all registered jobs"
}

func (c *SystemReconcileSummariesCommand) Run(args []string) int {
	fs := c.ClientFlagSet("system reconcile summaries")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 0 {
		return usageError(c.Ui, "system reconcile summaries", "This command takes no arguments")
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	if err := client.System().ReconcileSummaries(); err != nil {
		c.Ui.Error(apiErrorLine(client, "reconciling job summaries", err))
		return exitError
	}
	c.Ui.Output("Successfully reconciled job summaries")
	return exitOK
}

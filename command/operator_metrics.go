package command

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/drover-io/drover/api"
)

// OperatorMetricsCommand prints an agent's metrics.
type OperatorMetricsCommand struct{ Meta }

func (c *OperatorMetricsCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover operator metrics [options]

  Prints the metrics of the agent the command talks to: by default the
  in-memory metrics of the last complete collection interval as indented
  JSON, or every live series in Prometheus' text format.
` + clientOptionsHelp + `
Metrics Options:

  -format=<format>
    "json" (the default) or "prometheus". Prometheus output needs
    prometheus_metrics = true in the agent's telemetry block.

  -json
    The same as -format=json.
`)
}

func (c *OperatorMetricsCommand) Synopsis() string { return "Print the metrics of an agent" }

func (c *OperatorMetricsCommand) Run(args []string) int {
	var format string
	var asJSON bool
	fs := c.ClientFlagSet("operator metrics")
	fs.StringVar(&format, "format", "json", "")
	fs.BoolVar(&asJSON, "json", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 0 {
		return usageError(c.Ui, "operator metrics", "This command takes no arguments")
	}
	if asJSON && format != "json" {
		c.Ui.Error(fmt.Sprintf("-json contradicts -format=%s: choose one", format))
		return exitError
	}
	if format != "json" && format != "prometheus" {
		c.Ui.Error(fmt.Sprintf("Unknown -format %q: use json or prometheus", format))
		return exitError
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	q := &api.QueryOptions{}
	if format == "prometheus" {
		q.Params = map[string]string{"format": "prometheus"}
	}
	raw, err := client.Operator().Metrics(q)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "reading metrics", err))
		return exitError
	}
	if format == "prometheus" {
		c.Ui.Output(strings.TrimRight(string(raw), "\n"))
		return exitOK
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "    "); err != nil {
		c.Ui.Error(fmt.Sprintf("Error reading metrics: the agent's answer is not JSON: %v", err))
		return exitError
	}
	c.Ui.Output(out.String())
	return exitOK
}

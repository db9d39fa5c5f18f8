package command

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/drover-io/drover/api"
)

// EvalStatusCommand lists the evaluations, or shows one.
type EvalStatusCommand struct{ Meta }

func (c *EvalStatusCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover eval status [options] [eval]

  Without an evaluation, lists every evaluation, newest first. With an
  evaluation ID, or a unique prefix of one, shows the evaluation: what
  triggered it, its status, the allocations it placed and, when the
  scheduler could not place some, why.
` + clientOptionsHelp + `
Eval Status Options:

  -json
    Print the evaluation (or the list) as JSON.

  -verbose
    Show full IDs and absolute times.
`)
}

func (c *EvalStatusCommand) Synopsis() string {
	return "Display evaluation status and placement failures"
}

func (c *EvalStatusCommand) Run(args []string) int {
	var asJSON, verbose bool
	fs := c.ClientFlagSet("eval status")
	fs.BoolVar(&asJSON, "json", false, "")
	fs.BoolVar(&verbose, "verbose", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() > 1 {
		return usageError(c.Ui, "eval status", "This command takes at most one argument: [eval]")
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	if fs.NArg() == 0 {
		return c.list(client, asJSON, verbose)
	}

	id := fs.Arg(0)
	evals, _, err := client.Evaluations().PrefixList(id)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "querying evaluations", err))
		return exitError
	}
	stub, ok := resolvePrefix(c.Ui, id, "evaluation", evals, func(e *api.Evaluation) string { return e.ID },
		func(ambiguous []*api.Evaluation) string { return evalListTable(ambiguous, verbose) })
	if !ok {
		return exitError
	}
	eval, _, err := client.Evaluations().Info(stub.ID, nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "querying evaluation", err))
		return exitError
	}
	if asJSON {
		return c.printJSON(eval)
	}
	allocs, _, err := client.Evaluations().Allocations(eval.ID, nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "querying evaluation allocations", err))
		return exitError
	}
	c.show(eval, allocs, verbose, time.Now())
	return exitOK
}

func (c *EvalStatusCommand) list(client *api.Client, asJSON, verbose bool) int {
	evals, _, err := client.Evaluations().List(nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "querying evaluations", err))
		return exitError
	}
	slices.SortFunc(evals, func(a, b *api.Evaluation) int { return cmp.Compare(b.CreateIndex, a.CreateIndex) })
	switch {
	case asJSON:
		return c.printJSON(evals)
	case len(evals) == 0:
		c.Ui.Output("No evaluations found")
	default:
		c.Ui.Output(evalListTable(evals, verbose))
	}
	return exitOK
}

func (c *EvalStatusCommand) printJSON(v any) int {
	out, err := json.MarshalIndent(v, "", "    ")
	if err != nil {
		c.Ui.Error(fmt.Sprintf("Error encoding evaluation: %v", err))
		return exitError
	}
	c.Ui.Output(string(out))
	return exitOK
}

func (c *EvalStatusCommand) show(eval *api.Evaluation, allocs []*api.AllocationListStub, verbose bool, now time.Time) {
	c.Ui.Output(formatKV(evalRows(eval, verbose, now)))
	if len(allocs) > 0 {
		c.Ui.Output("\nPlaced Allocations")
		c.Ui.Output(allocTable(allocs, verbose, now))
	}
	if len(eval.FailedTGAllocs) > 0 {
		c.Ui.Output("\nFailed Placements")
		c.Ui.Output(formatPlacementFailures(eval.FailedTGAllocs, verbose))
		if eval.BlockedEval != "" {
			c.Ui.Output(fmt.Sprintf("\nEvaluation %q waiting for additional capacity to place remainder",
				shortID(eval.BlockedEval, verbose)))
		}
	}
}

func evalRows(eval *api.Evaluation, verbose bool, now time.Time) []string {
	rows := []string{
		"ID|" + shortID(eval.ID, verbose),
		"Create Time|" + when(eval.CreateTime, verbose, now),
		"Modify Time|" + when(eval.ModifyTime, verbose, now),
		"Status|" + eval.Status,
		"Status Description|" + orNone(eval.StatusDescription),
		"Type|" + eval.Type,
		"TriggeredBy|" + eval.TriggeredBy,
	}
	if eval.NodeID != "" {
		rows = append(rows, "Node ID|"+shortID(eval.NodeID, verbose))
	}
	if eval.JobID != "" {
		rows = append(rows, "Job ID|"+eval.JobID)
	}
	rows = append(rows,
		"Namespace|"+eval.Namespace,
		"Priority|"+strconv.Itoa(eval.Priority),
		"Placement Failures|"+strconv.FormatBool(len(eval.FailedTGAllocs) > 0),
	)
	if !eval.WaitUntil.IsZero() {
		rows = append(rows, "Wait Until|"+formatTime(eval.WaitUntil))
	}
	if verbose {
		rows = append(rows,
			"Previous Eval|"+orNone(eval.PreviousEval),
			"Next Eval|"+orNone(eval.NextEval),
			"Blocked Eval|"+orNone(eval.BlockedEval),
		)
	}
	return rows
}

// evalListTable is the table of evaluations "eval status" prints without
// arguments.
func evalListTable(evals []*api.Evaluation, verbose bool) string {
	rows := []string{"ID|Priority|Triggered By|Job ID|Namespace|Node ID|Status|Placement Failures"}
	for _, e := range evals {
		rows = append(rows, fmt.Sprintf("%s|%d|%s|%s|%s|%s|%s|%t",
			shortID(e.ID, verbose), e.Priority, e.TriggeredBy, orNone(e.JobID), e.Namespace,
			orNone(shortID(e.NodeID, verbose)), e.Status, len(e.FailedTGAllocs) > 0))
	}
	return formatList(rows)
}

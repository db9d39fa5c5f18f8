package command

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

// The run times of a job's finished allocations (GET /v1/job/:id/runtimes)
// show in `job status` as a "Run times" section, and `job plan` suggests a
// shorter max_run_duration from them.

// runTimesRows is the "Run times" table: one row per job version and
// group, newest version first; none when nothing finished.
func runTimesRows(rt *api.JobRunTimes) []string {
	if rt == nil || len(rt.Groups) == 0 {
		return nil
	}
	rows := []string{"Version|Task Group|Count|P50|P95|Max|Budget|Timeouts"}
	for _, g := range rt.Groups {
		budget := "-"
		if g.Budget > 0 {
			budget = formatDuration(g.Budget)
		}
		rows = append(rows, fmt.Sprintf("%d|%s|%d|%s|%s|%s|%s|%d",
			g.Version, g.TaskGroup, g.Count, formatDuration(g.P50), formatDuration(g.P95), formatDuration(g.Max), budget, g.Timeouts))
	}
	return rows
}

// showRunTimes prints the job's "Run times" section, when any of its
// allocations finished.
func (v *jobStatusView) showRunTimes(job *api.Job) error {
	rt, _, err := v.client.Jobs().RunTimes(deref(job.ID), nil)
	if err != nil {
		return err
	}
	if rows := runTimesRows(rt); rows != nil {
		v.Ui.Output("\nRun times")
		v.Ui.Output(formatList(rows))
	}
	return nil
}

// budgetSuggestions are `job plan`'s suggestions for the planned job:
// for each group with a budget (its own max_run_duration, else the
// job's), the newest version's run times with enough samples, when their
// p95 is far below that budget (structs.RunTimeStats.Suggestion).
func budgetSuggestions(job *api.Job, rt *api.JobRunTimes) []string {
	if rt == nil {
		return nil
	}
	var out []string
	for _, tg := range job.TaskGroups {
		name := deref(tg.Name)
		budget := deref(tg.MaxRunDuration)
		if budget <= 0 {
			budget = deref(job.MaxRunDuration)
		}
		if budget <= 0 {
			continue
		}
		for _, g := range rt.Groups { // newest version first
			if g.TaskGroup != name || g.Count < structs.RunTimeSuggestMinSamples {
				continue
			}
			s := structs.RunTimeStats{Count: g.Count, P95: g.P95}
			if suggested, ok := s.Suggestion(budget); ok {
				out = append(out, fmt.Sprintf("Task group %q: max_run_duration %s is %sx the p95 run time %s (%d runs of version %d); consider %s",
					name, formatDuration(budget), strconv.FormatInt(int64(budget/max(g.P95, time.Nanosecond)), 10), formatDuration(g.P95), g.Count, g.Version, formatDuration(suggested)))
			}
			break
		}
	}
	return out
}

// planBudgetSuggestions reads the stored job's run times and formats the
// suggestions for the planned job; nothing for a job not stored yet.
func planBudgetSuggestions(client *api.Client, job *api.Job) (string, error) {
	rt, _, err := client.Jobs().RunTimes(deref(job.ID), &api.QueryOptions{Namespace: deref(job.Namespace)})
	if api.IsNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	lines := budgetSuggestions(job, rt)
	if len(lines) == 0 {
		return "", nil
	}
	return "Run times:\n- " + strings.Join(lines, "\n- ") + "\n", nil
}

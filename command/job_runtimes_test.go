package command

import (
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

func TestRunTimesRows(t *testing.T) {
	must.Nil(t, runTimesRows(&api.JobRunTimes{}))
	rows := runTimesRows(&api.JobRunTimes{Groups: []*api.RunTimeStats{
		{Version: 2, TaskGroup: "etl", Budget: time.Hour, Count: 20, P50: 5 * time.Minute, P95: 7 * time.Minute, Max: 9 * time.Minute, Timeouts: 1},
		{Version: 1, TaskGroup: "etl", Count: 3, P50: time.Second, P95: 2 * time.Second, Max: 2 * time.Second},
	}})
	must.Eq(t, []string{
		"Version|Task Group|Count|P50|P95|Max|Budget|Timeouts",
		"2|etl|20|5m|7m|9m|1h|1",
		"1|etl|3|1s|2s|2s|-|0",
	}, rows)
}

func TestBudgetSuggestions(t *testing.T) {
	hour := time.Hour
	job := &api.Job{ID: new("etl"), TaskGroups: []*api.TaskGroup{
		{Name: new("etl"), MaxRunDuration: &hour},
		{Name: new("few")},
		{Name: new("unbounded")},
	}}
	rt := &api.JobRunTimes{Groups: []*api.RunTimeStats{
		{Version: 3, TaskGroup: "etl", Count: 12, P95: 7 * time.Minute},
		{Version: 2, TaskGroup: "etl", Count: 50, P95: time.Minute}, // older: not used
		{Version: 3, TaskGroup: "few", Count: 9, P95: time.Second},
		{Version: 3, TaskGroup: "unbounded", Count: 50, P95: time.Second},
	}}
	got := budgetSuggestions(job, rt)
	must.Eq(t, []string{`Task group "etl": max_run_duration 1h is 8x the p95 run time 7m (12 runs of version 3); consider 10m`}, got)

	// The job's budget applies to a group without its own.
	jobBudget := 2 * time.Hour
	job.MaxRunDuration = &jobBudget
	rt.Groups[2].Count = 10
	got = budgetSuggestions(job, rt)
	must.SliceLen(t, 3, got)
	must.True(t, strings.HasPrefix(got[1], `Task group "few": max_run_duration 2h is 7200x the p95 run time 1s`))
	must.StrContains(t, got[1], "consider 2s")

	// Close enough to the budget: nothing to say.
	rt.Groups[0].P95 = 20 * time.Minute
	must.SliceLen(t, 2, budgetSuggestions(job, rt))
}

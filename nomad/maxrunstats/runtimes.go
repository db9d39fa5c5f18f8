package maxrunstats

import (
	"github.com/hashicorp/go-metrics"

	"github.com/drover-io/drover/structs"
)

// The run-time gauges, Drover's (Nomad has no such series), beside the
// other max_run_duration series: per namespace, job and group, the run
// times of the finished allocations of the newest job version that has
// any (structs.RunTimes), in seconds, and the budget they ran under. Only
// groups with a budget have them, so that service jobs add no series.
var (
	MetricRunTimeP50    = []string{"nomad", "max_run_duration", "run_time_p50"}
	MetricRunTimeP95    = []string{"nomad", "max_run_duration", "run_time_p95"}
	MetricRunTimeMax    = []string{"nomad", "max_run_duration", "run_time_max"}
	MetricRunTimeCount  = []string{"nomad", "max_run_duration", "run_time_count"}
	MetricRunTimeBudget = []string{"nomad", "max_run_duration", "run_time_budget"}
)

// runTimesEvery is how many counts of the running gauges go by between
// two computations of the run times, which sort every job's finished
// allocations.
const runTimesEvery = 10

// runTimes sets the run-time gauges from allocs, the state's allocations.
func (m *Stats) runTimes(allocs []*structs.Allocation) {
	type jobKey struct{ namespace, id string }
	byJob := map[jobKey][]*structs.Allocation{}
	names := map[jobKey]string{}
	for _, a := range allocs {
		k := jobKey{a.Namespace, a.JobID}
		byJob[k] = append(byJob[k], a)
		if a.Job != nil && a.Job.Name != "" {
			names[k] = a.Job.Name
		}
	}
	sink := m.target()
	for k, list := range byJob {
		seen := map[string]bool{}
		for _, g := range structs.RunTimes(k.namespace, k.id, list).Groups { // newest version first
			if seen[g.TaskGroup] || g.Budget <= 0 {
				continue
			}
			seen[g.TaskGroup] = true
			job := names[k]
			if job == "" {
				job = k.id
			}
			var labels []metrics.Label = maxRunKey{namespace: k.namespace, job: job, group: g.TaskGroup}.labels()
			sink.SetGaugeWithLabels(MetricRunTimeP50, float32(g.P50.Seconds()), labels)
			sink.SetGaugeWithLabels(MetricRunTimeP95, float32(g.P95.Seconds()), labels)
			sink.SetGaugeWithLabels(MetricRunTimeMax, float32(g.Max.Seconds()), labels)
			sink.SetGaugeWithLabels(MetricRunTimeCount, float32(g.Count), labels)
			sink.SetGaugeWithLabels(MetricRunTimeBudget, float32(g.Budget.Seconds()), labels)
		}
	}
}

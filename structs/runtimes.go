package structs

import (
	"cmp"
	"slices"
	"time"
)

// Run-time accounting is Drover's: how long the finished allocations of
// each job version and group ran, against the budget they ran under, so
// that a budget can be set from what the work needs. It is computed on
// read from the allocations the state store holds, not kept in the job
// summary: percentiles cannot be updated from counts, the allocations are
// already indexed by job, and what garbage collection removes leaves the
// figures as it leaves the allocation list, with nothing to keep in step.

// RunTimeSuggestMinSamples and RunTimeSuggestRatio decide when `job plan`
// suggests a shorter budget: at least this many finished allocations,
// whose p95 is below this share of the budget.
const (
	RunTimeSuggestMinSamples = 10
	RunTimeSuggestRatio      = 0.25
)

// JobRunTimes is the run-time accounting of one job.
type JobRunTimes struct {
	Namespace string
	JobID     string
	// Groups are the figures per job version and group, newest version
	// first, then by group name.
	Groups []*RunTimeStats
}

// RunTimeStats are the run times of the finished allocations of one group
// of one job version. A run time is the span the group's budget measures:
// from the allocation's creation to the end of its last task.
type RunTimeStats struct {
	Version   uint64
	TaskGroup string
	// Budget is the max_run_duration the version gave the group: its own,
	// else the job's; zero when it had none.
	Budget time.Duration
	// Count is how many finished allocations were measured.
	Count int
	// P50, P95 and Max are nearest-rank percentiles of their run times.
	P50 time.Duration
	P95 time.Duration
	Max time.Duration
	// Timeouts is how many of them a deadline stopped.
	Timeouts int
}

// RunTimes computes the accounting of allocs, the allocations of one job
// (of any version); those not finished, lost, or with no time to measure
// are left out. Each allocation's version and budget are read from its
// own copy of the job, the version it ran.
func RunTimes(namespace, jobID string, allocs []*Allocation) *JobRunTimes {
	type key struct {
		version uint64
		group   string
	}
	samples := make(map[key][]time.Duration)
	stats := make(map[key]*RunTimeStats)
	for _, a := range allocs {
		d, ok := a.RunTime()
		if !ok {
			continue
		}
		var version uint64
		if a.Job != nil {
			version = a.Job.Version
		}
		k := key{version, a.TaskGroup}
		s := stats[k]
		if s == nil {
			s = &RunTimeStats{Version: version, TaskGroup: a.TaskGroup, Budget: a.groupBudget()}
			stats[k] = s
		}
		samples[k] = append(samples[k], d)
		if a.timedOut() {
			s.Timeouts++
		}
	}
	out := &JobRunTimes{Namespace: namespace, JobID: jobID, Groups: make([]*RunTimeStats, 0, len(stats))}
	for k, s := range stats {
		d := samples[k]
		slices.Sort(d)
		s.Count = len(d)
		s.P50 = nearestRank(d, 50)
		s.P95 = nearestRank(d, 95)
		s.Max = d[len(d)-1]
		out.Groups = append(out.Groups, s)
	}
	slices.SortFunc(out.Groups, func(a, b *RunTimeStats) int {
		if c := cmp.Compare(b.Version, a.Version); c != 0 {
			return c
		}
		return cmp.Compare(a.TaskGroup, b.TaskGroup)
	})
	return out
}

// nearestRank is the p-th percentile of sorted, not empty: the smallest
// value with at least p% of the values at or below it.
func nearestRank(sorted []time.Duration, p int) time.Duration {
	rank := (p*len(sorted) + 99) / 100 // ceil(p/100 * n)
	return sorted[max(rank, 1)-1]
}

// RunTime is how long a finished allocation ran: from its CreateTime to
// the end of its last task. ok is false when it has not finished (or was
// lost), or has no times to measure.
func (a *Allocation) RunTime() (time.Duration, bool) {
	if a.ClientStatus != AllocClientStatusComplete && a.ClientStatus != AllocClientStatusFailed {
		return 0, false
	}
	var end time.Time
	for _, ts := range a.TaskStates {
		if ts != nil && ts.FinishedAt.After(end) {
			end = ts.FinishedAt
		}
	}
	if end.IsZero() || a.CreateTime <= 0 {
		return 0, false
	}
	return max(end.Sub(time.Unix(0, a.CreateTime)), 0), true
}

// groupBudget is the max_run_duration the allocation's job version gave
// its group: the group's own, else the job's; zero when none.
func (a *Allocation) groupBudget() time.Duration {
	tg := a.LookupTaskGroup()
	if tg == nil {
		return 0
	}
	if b := tg.MaxRunBudget(); b > 0 {
		return b
	}
	if d := a.Job.MaxRunDuration; d != nil && *d > 0 {
		return *d
	}
	return 0
}

// timedOut reports whether a deadline stopped the allocation or one of
// its tasks.
func (a *Allocation) timedOut() bool {
	if exceededMaxRun(a.ClientDescription) {
		return true
	}
	for _, ts := range a.TaskStates {
		if ts != nil && ts.MaxRunExceeded {
			return true
		}
	}
	return false
}

// Suggestion is the budget `job plan` suggests for a group whose budget
// is far above the run times measured: with at least
// RunTimeSuggestMinSamples finished allocations whose p95 is below
// RunTimeSuggestRatio of budget, the first round value of
// suggestionLadder at or above a quarter more than the p95 (7m gives
// 10m); ok is false when there is nothing to suggest.
func (s *RunTimeStats) Suggestion(budget time.Duration) (suggested time.Duration, ok bool) {
	if s == nil || budget <= 0 || s.Count < RunTimeSuggestMinSamples || s.P95 <= 0 {
		return 0, false
	}
	if float64(s.P95) >= RunTimeSuggestRatio*float64(budget) {
		return 0, false
	}
	want := s.P95 + s.P95/4
	for _, step := range suggestionLadder {
		if step >= want {
			return min(step, budget), true
		}
	}
	return min((want+time.Hour-1)/time.Hour*time.Hour, budget), true
}

// suggestionLadder are the round budgets a suggestion picks from; below
// its first, whole seconds are suggested.
var suggestionLadder = []time.Duration{
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 20 * time.Second, 30 * time.Second, 45 * time.Second,
	time.Minute, 2 * time.Minute, 3 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 20 * time.Minute, 30 * time.Minute, 45 * time.Minute,
	time.Hour, 90 * time.Minute, 2 * time.Hour, 3 * time.Hour, 4 * time.Hour, 6 * time.Hour, 8 * time.Hour, 12 * time.Hour, 24 * time.Hour,
}

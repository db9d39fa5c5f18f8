package structs

import (
	"testing"
	"time"
)

// runAlloc is a finished allocation of version v of job, created at 0 and
// ending after d.
func runAlloc(job *Job, status, desc string, d time.Duration) *Allocation {
	created := time.Unix(1000, 0)
	return &Allocation{
		Job: job, TaskGroup: "g", ClientStatus: status, ClientDescription: desc,
		CreateTime: created.UnixNano(),
		TaskStates: map[string]*TaskState{"t": {State: TaskStateDead, FinishedAt: created.Add(d)}},
	}
}

func TestRunTimes(t *testing.T) {
	hour, jobBudget := time.Hour, 3*time.Hour
	v0 := &Job{ID: "j", Version: 0, TaskGroups: []*TaskGroup{{Name: "g", MaxRunDuration: &hour}}}
	v1 := &Job{ID: "j", Version: 1, MaxRunDuration: &jobBudget, TaskGroups: []*TaskGroup{{Name: "g"}}}
	var allocs []*Allocation
	// Version 0: 1..20 minutes, one of them (the 20th) a timeout.
	for i := 1; i <= 19; i++ {
		allocs = append(allocs, runAlloc(v0, AllocClientStatusComplete, "", time.Duration(i)*time.Minute))
	}
	allocs = append(allocs, runAlloc(v0, AllocClientStatusComplete, AllocTimeoutReasonMaxRunDuration, 20*time.Minute))
	// Not measured: running, lost, no finish time.
	running := runAlloc(v0, AllocClientStatusRunning, "", 0)
	lost := runAlloc(v0, AllocClientStatusLost, "", time.Minute)
	unfinished := runAlloc(v0, AllocClientStatusFailed, "", 0)
	unfinished.TaskStates = nil
	allocs = append(allocs, running, lost, unfinished)
	// Version 1: two failures, of 5 and 7 minutes; the job's budget.
	allocs = append(allocs, runAlloc(v1, AllocClientStatusFailed, "", 5*time.Minute), runAlloc(v1, AllocClientStatusFailed, "", 7*time.Minute))

	got := RunTimes("default", "j", allocs)
	if len(got.Groups) != 2 {
		t.Fatalf("got %d groups, want 2", len(got.Groups))
	}
	want1 := RunTimeStats{Version: 1, TaskGroup: "g", Budget: 3 * time.Hour, Count: 2, P50: 5 * time.Minute, P95: 7 * time.Minute, Max: 7 * time.Minute}
	want0 := RunTimeStats{Version: 0, TaskGroup: "g", Budget: time.Hour, Count: 20, P50: 10 * time.Minute, P95: 19 * time.Minute, Max: 20 * time.Minute, Timeouts: 1}
	if *got.Groups[0] != want1 {
		t.Errorf("version 1: got %+v, want %+v", *got.Groups[0], want1)
	}
	if *got.Groups[1] != want0 {
		t.Errorf("version 0: got %+v, want %+v", *got.Groups[1], want0)
	}
}

func TestNearestRank(t *testing.T) {
	one := []time.Duration{7}
	if nearestRank(one, 50) != 7 || nearestRank(one, 95) != 7 {
		t.Error("one value is every percentile")
	}
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(i + 1)
	}
	if got := nearestRank(hundred, 95); got != 95 {
		t.Errorf("p95 of 1..100 = %d", got)
	}
	if got := nearestRank(hundred, 50); got != 50 {
		t.Errorf("p50 of 1..100 = %d", got)
	}
}

func TestRunTimeSuggestion(t *testing.T) {
	cases := []struct {
		s      RunTimeStats
		budget time.Duration
		want   time.Duration
		ok     bool
	}{
		{RunTimeStats{Count: 10, P95: 7 * time.Minute}, time.Hour, 10 * time.Minute, true},
		{RunTimeStats{Count: 9, P95: 7 * time.Minute}, time.Hour, 0, false},   // too few
		{RunTimeStats{Count: 10, P95: 15 * time.Minute}, time.Hour, 0, false}, // 25%: not far below
		{RunTimeStats{Count: 10, P95: 14 * time.Minute}, time.Hour, 20 * time.Minute, true},
		{RunTimeStats{Count: 50, P95: 10 * time.Second}, time.Minute, 15 * time.Second, true},
		{RunTimeStats{Count: 50, P95: 100 * time.Millisecond}, time.Minute, time.Second, true},
		{RunTimeStats{Count: 50, P95: 30 * time.Hour}, 200 * time.Hour, 38 * time.Hour, true},
		{RunTimeStats{Count: 50, P95: 10 * time.Second}, 0, 0, false}, // no budget
	}
	for _, c := range cases {
		got, ok := c.s.Suggestion(c.budget)
		if got != c.want || ok != c.ok {
			t.Errorf("%+v of %s: got %s %v, want %s %v", c.s, c.budget, got, ok, c.want, c.ok)
		}
	}
}

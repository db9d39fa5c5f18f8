package command

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

func TestMaxRunRows(t *testing.T) {
	now := time.Date(2026, 11, 29, 23, 40, 0, 0, time.UTC)
	created := now.Add(-6 * time.Second)
	budget := 10 * time.Second
	// The job says otherwise: what the servers say applies wins.
	job := &api.Job{TaskGroups: []*api.TaskGroup{{Name: ptr("g"), MaxRunDuration: ptr(time.Hour)}}}
	alloc := func(status string, exceeded bool, deadline time.Time) *api.Allocation {
		return &api.Allocation{
			TaskGroup: "g", Job: job, ClientStatus: status,
			CreateTime: created.UnixNano(), MaxRunDeadline: deadline.UnixNano(),
			MaxRunDuration: budget, MaxRunExceeded: exceeded,
		}
	}
	deadline := created.Add(budget)
	passed := now.Add(-2 * time.Second)

	for _, tc := range []struct {
		name  string
		alloc *api.Allocation
		want  []string
	}{{
		name:  "running with time left",
		alloc: alloc("running", false, deadline),
		want: []string{
			"Max Run Duration|10s",
			"Deadline|" + formatTimeMillis(deadline) + " (in 4s)",
			"Time Left|4s",
		},
	}, {
		name:  "stopped at its deadline",
		alloc: alloc("complete", true, passed),
		want: []string{
			"Max Run Duration|10s",
			"Deadline|" + formatTimeMillis(passed) + " (2s ago)",
			"Time Left|none (exceeded 2s ago)",
		},
	}, {
		name:  "past its deadline, tasks still being killed",
		alloc: alloc("running", false, passed),
		want: []string{
			"Max Run Duration|10s",
			"Deadline|" + formatTimeMillis(passed) + " (2s ago)",
			"Time Left|none (exceeded 2s ago)",
		},
	}, {
		name:  "ended before its deadline",
		alloc: alloc("complete", false, deadline),
		want: []string{
			"Max Run Duration|10s",
			"Deadline|" + formatTimeMillis(deadline) + " (not reached: allocation complete)",
			"Time Left|none (allocation complete)",
		},
	}, {
		name:  "failed, deadline since passed",
		alloc: alloc("failed", false, passed),
		want: []string{
			"Max Run Duration|10s",
			"Deadline|" + formatTimeMillis(passed) + " (not reached: allocation failed)",
			"Time Left|none (allocation failed)",
		},
	}, {
		name:  "exceeded on a client whose clock is ahead of ours",
		alloc: alloc("complete", true, now.Add(time.Second)),
		want: []string{
			"Max Run Duration|10s",
			"Deadline|" + formatTimeMillis(now.Add(time.Second)) + " (in 1s)",
			"Time Left|none (exceeded)",
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			must.Eq(t, tc.want, maxRunRows(tc.alloc, now))
		})
	}
}

func TestMaxRunRows_ChangedForTheAllocation(t *testing.T) {
	now := time.Date(2026, 11, 29, 23, 40, 0, 0, time.UTC)
	alloc := &api.Allocation{ClientStatus: "running", MaxRunDeadline: now.Add(time.Hour).UnixNano(),
		MaxRunDuration: 2 * time.Hour, MaxRunScope: "allocation"}
	must.Eq(t, "Max Run Duration|2h (changed for this allocation)", maxRunRows(alloc, now)[0])
}

func TestMaxRunRows_NoneWithoutDeadline(t *testing.T) {
	must.SliceEmpty(t, maxRunRows(&api.Allocation{ClientStatus: "running", CreateTime: 1}, time.Now()))
}

func TestFormatAllocStatus_MaxRunRowsAfterModified(t *testing.T) {
	now := time.Date(2026, 11, 29, 23, 40, 0, 0, time.UTC)
	budget := 10 * time.Second
	alloc := &api.Allocation{
		ID: "0a1b2c3d-0000-0000-0000-000000000000", TaskGroup: "g", ClientStatus: "running",
		Job:        &api.Job{Version: ptr(uint64(3)), TaskGroups: []*api.TaskGroup{{Name: ptr("g"), MaxRunDuration: &budget}}},
		CreateTime: now.Add(-6 * time.Second).UnixNano(), ModifyTime: now.Add(-5 * time.Second).UnixNano(),
		MaxRunDeadline: now.Add(4 * time.Second).UnixNano(), MaxRunDuration: budget,
	}
	out := formatAllocStatus(alloc, true, false, now)
	var keys []string
	for _, line := range strings.Split(out, "\n") {
		key, _, _ := strings.Cut(line, "=")
		keys = append(keys, strings.TrimSpace(key))
	}
	must.Eq(t, []string{"ID", "Eval ID", "Name", "Node ID", "Node Name", "Job ID", "Job Version",
		"Client Status", "Client Description", "Desired Status", "Desired Description", "Created", "Modified",
		"Max Run Duration", "Deadline", "Time Left"}, keys)
	must.StrContains(t, out, "\nMax Run Duration    = 10s\n")
	must.StrContains(t, out, "\nTime Left           = 4s")

	// -verbose changes IDs and the Created/Modified times, not the
	// deadline, which shows both forms anyway.
	verbose := formatAllocStatus(alloc, true, true, now)
	must.StrContains(t, verbose, "\nDeadline            = "+formatTimeMillis(now.Add(4*time.Second))+" (in 4s)\n")
}

func TestDeadlineText(t *testing.T) {
	now := time.Date(2026, 11, 29, 23, 40, 0, 0, time.UTC)
	soon := now.Add(7 * time.Second).UnixNano()
	ago := now.Add(-3 * time.Second).UnixNano()
	must.Eq(t, "in 7s", deadlineText(soon, "running", false, false, now))
	must.Eq(t, formatUnixNano(soon), deadlineText(soon, "pending", false, true, now))
	must.Eq(t, "3s ago", deadlineText(ago, "complete", true, false, now))
	must.Eq(t, "-", deadlineText(0, "running", false, false, now))
	must.Eq(t, "-", deadlineText(0, "complete", false, true, now))
	// An allocation that ended on its own never reached its deadline,
	// whether or not that moment has come since.
	must.Eq(t, "not reached", deadlineText(soon, "failed", false, false, now))
	must.Eq(t, "not reached", deadlineText(ago, "complete", false, true, now))
	must.Eq(t, "not reached", deadlineText(soon, "lost", false, false, now))
}

func TestClientStatusText(t *testing.T) {
	must.Eq(t, "complete (max_run_duration)", clientStatusText("complete", true))
	must.Eq(t, "failed (max_run_duration)", clientStatusText("failed", true))
	must.Eq(t, "complete", clientStatusText("complete", false))
}

// TestAllocTable_MarksTimeouts holds that job status and job allocs tell
// an allocation the deadline stopped from one that finished on its own.
func TestAllocTable_MarksTimeouts(t *testing.T) {
	now := time.Date(2026, 11, 29, 23, 40, 0, 0, time.UTC)
	deadline := now.Add(-time.Second).UnixNano()
	allocs := []*api.AllocationListStub{
		{ID: "aaaaaaaa-1", CreateIndex: 3, TaskGroup: "g", ClientStatus: "complete", CreateTime: now.UnixNano(), MaxRunDeadline: deadline, MaxRunExceeded: true},
		{ID: "bbbbbbbb-2", CreateIndex: 2, TaskGroup: "g", ClientStatus: "complete", CreateTime: now.UnixNano(), MaxRunDeadline: now.Add(time.Minute).UnixNano()},
		{ID: "cccccccc-3", CreateIndex: 1, TaskGroup: "g", ClientStatus: "failed", CreateTime: now.UnixNano(), MaxRunDeadline: now.Add(time.Minute).UnixNano()},
	}
	lines := strings.Split(allocTable(allocs, false, now), "\n")
	must.StrContains(t, lines[1], "complete (max_run_duration)")
	must.StrHasSuffix(t, "1s ago", lines[1])
	must.StrNotContains(t, lines[2], "max_run_duration")
	must.StrHasSuffix(t, "not reached", lines[2])
	must.StrHasSuffix(t, "not reached", lines[3])
	must.StrNotContains(t, lines[3], "in 1m")
}

func TestAllocTable_DeadlineAbsoluteWithVerbose(t *testing.T) {
	now := time.Date(2026, 11, 29, 23, 40, 0, 0, time.UTC)
	deadline := now.Add(7 * time.Second).UnixNano()
	allocs := []*api.AllocationListStub{
		{ID: "aaaaaaaa-1", TaskGroup: "with", ClientStatus: "running", CreateTime: now.UnixNano(), MaxRunDeadline: deadline},
		{ID: "bbbbbbbb-2", TaskGroup: "without", ClientStatus: "running", CreateTime: now.UnixNano()},
	}
	lines := strings.Split(allocTable(allocs, true, now), "\n")
	must.StrHasSuffix(t, "Deadline", lines[0])
	must.StrHasSuffix(t, "  "+formatUnixNano(deadline), lines[1])
	must.StrHasSuffix(t, "  -", lines[2])
}

func TestTaskMaxRunRows(t *testing.T) {
	now := time.Date(2026, 11, 29, 23, 40, 0, 0, time.UTC)
	soon, ago := now.Add(4*time.Second), now.Add(-2*time.Second)
	state := func(state string, scope string, deadline time.Time, exceeded bool) *api.TaskState {
		ts := &api.TaskState{State: state, MaxRunDuration: 5 * time.Second, MaxRunScope: scope, MaxRunExceeded: exceeded}
		if !deadline.IsZero() {
			ts.MaxRunDeadline = deadline.UnixNano()
		}
		return ts
	}
	running := &api.Allocation{ClientStatus: "running"}
	for _, tc := range []struct {
		name  string
		alloc *api.Allocation
		ts    *api.TaskState
		want  []string
	}{{
		name: "own limit, running", alloc: running, ts: state("running", "task", soon, false),
		want: []string{"Max Run Duration|5s (task)", "Deadline|" + formatTimeMillis(soon) + " (in 4s)", "Time Left|4s"},
	}, {
		name: "own limit, killed by it", alloc: running, ts: state("dead", "task", ago, true),
		want: []string{"Max Run Duration|5s (task)", "Deadline|" + formatTimeMillis(ago) + " (2s ago)", "Time Left|none (exceeded 2s ago)"},
	}, {
		name: "own limit, ended before it", alloc: running, ts: state("dead", "task", soon, false),
		want: []string{"Max Run Duration|5s (task)", "Deadline|" + formatTimeMillis(soon) + " (not reached: task dead)", "Time Left|none (task dead)"},
	}, {
		name: "own limit, not begun", alloc: running, ts: state("pending", "task", time.Time{}, false),
		want: []string{"Max Run Duration|5s (task)", "Deadline|none yet (counts from the task's start)"},
	}, {
		name: "the group's, which stopped the allocation", alloc: &api.Allocation{ClientStatus: "complete", MaxRunExceeded: true},
		ts:   state("dead", "group", ago, false),
		want: []string{"Max Run Duration|5s (group)", "Deadline|" + formatTimeMillis(ago) + " (2s ago)", "Time Left|none (exceeded 2s ago)"},
	}, {
		// The case: a sibling that exited 0 at 2 s, beside a
		// task the allocation's deadline killed at 10 s.
		name: "the group's, which stopped the allocation after the task finished", alloc: &api.Allocation{ClientStatus: "complete", MaxRunExceeded: true},
		ts: func() *api.TaskState {
			ts := state("dead", "group", ago, false)
			ts.FinishedAt = ago.Add(-8 * time.Second)
			return ts
		}(),
		want: []string{"Max Run Duration|5s (group)", "Deadline|" + formatTimeMillis(ago) + " (not reached: task dead)", "Time Left|none (task dead)"},
	}, {
		name: "the group's, which stopped the task", alloc: &api.Allocation{ClientStatus: "complete", MaxRunExceeded: true},
		ts: func() *api.TaskState {
			ts := state("dead", "group", ago, false)
			ts.FinishedAt = ago.Add(time.Millisecond)
			return ts
		}(),
		want: []string{"Max Run Duration|5s (group)", "Deadline|" + formatTimeMillis(ago) + " (2s ago)", "Time Left|none (exceeded 2s ago)"},
	}, {
		name: "warning due", alloc: running, ts: func() *api.TaskState {
			ts := state("running", "task", soon, false)
			ts.MaxRunWarningAt = now.Add(time.Second).UnixNano()
			return ts
		}(),
		want: []string{"Max Run Duration|5s (task)", "Deadline|" + formatTimeMillis(soon) + " (in 4s)", "Time Left|4s",
			"Warning|due " + formatTimeMillis(now.Add(time.Second)) + " (in 1s)"},
	}, {
		name: "warning sent", alloc: running, ts: func() *api.TaskState {
			ts := state("running", "task", soon, false)
			ts.MaxRunWarningAt, ts.MaxRunWarnedAt = now.Add(-time.Second).UnixNano(), now.Add(-time.Second)
			return ts
		}(),
		want: []string{"Max Run Duration|5s (task)", "Deadline|" + formatTimeMillis(soon) + " (in 4s)", "Time Left|4s",
			"Warning|sent " + formatTimeMillis(now.Add(-time.Second)) + " (1s ago)"},
	}, {
		name: "none", alloc: running, ts: &api.TaskState{State: "running"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			must.Eq(t, tc.want, taskMaxRunRows(tc.alloc, tc.ts, now))
		})
	}
}

// TestFormatAllocStatus_ExactBudgets: a budget shows as configured, not
// rounded ("500ms" was "1s", "1h30m30s" was "1h30m"), with -verbose or
// not; a time left under a second shows in milliseconds.
func TestFormatAllocStatus_ExactBudgets(t *testing.T) {
	now := time.Date(2026, 11, 29, 23, 40, 0, 0, time.UTC)
	for _, tc := range []struct {
		budget   time.Duration
		left     time.Duration
		shown    string
		timeLeft string
	}{
		{500 * time.Millisecond, 300 * time.Millisecond, "500ms", "300ms"},
		{90*time.Minute + 30*time.Second, 90*time.Minute + 29*time.Second, "1h30m30s", "1h30m29s"},
	} {
		t.Run(tc.shown, func(t *testing.T) {
			alloc := &api.Allocation{
				ID: "0a1b2c3d-0000-0000-0000-000000000000", TaskGroup: "g", ClientStatus: "running",
				Job: &api.Job{TaskGroups: []*api.TaskGroup{{
					Name: ptr("g"), MaxRunDuration: &tc.budget, Tasks: []*api.Task{{Name: "t"}},
				}}},
				CreateTime: now.Add(tc.left - tc.budget).UnixNano(), ModifyTime: now.UnixNano(),
				MaxRunDeadline: now.Add(tc.left).UnixNano(), MaxRunDuration: tc.budget,
				TaskStates: map[string]*api.TaskState{"t": {
					State: "running", MaxRunDuration: tc.budget, MaxRunScope: "group", MaxRunDeadline: now.Add(tc.left).UnixNano(),
				}},
			}
			for _, verbose := range []bool{false, true} {
				out := formatAllocStatus(alloc, false, verbose, now)
				must.StrContains(t, out, "\nMax Run Duration    = "+tc.shown+"\n")
				must.StrContains(t, out, "\nTime Left           = "+tc.timeLeft+"\n")
				must.StrContains(t, out, "\nMax Run Duration = "+tc.shown+" (group)\n")
				must.StrContains(t, out, "\nTime Left        = "+tc.timeLeft+"\n")
			}
		})
	}
}

func TestMaxRunRows_SetByDispatch(t *testing.T) {
	now := time.Date(2026, 11, 29, 23, 40, 0, 0, time.UTC)
	alloc := &api.Allocation{ClientStatus: "running", MaxRunDeadline: now.Add(30 * time.Second).UnixNano(),
		MaxRunDuration: 30 * time.Second, MaxRunScope: "dispatch"}
	must.Eq(t, "Max Run Duration|30s (set by dispatch)", maxRunRows(alloc, now)[0])
}

// TestDeadlineRows_RelativeAndTimeLeftAgree: the Deadline row's relative
// time and the Time Left row are one rounding of one moment, in the
// allocation's rows and a task's, at every fraction of a second ("in 5s"
// beside "6s" was the bug) and at every scale.
func TestDeadlineRows_RelativeAndTimeLeftAgree(t *testing.T) {
	now := time.Date(2026, 11, 29, 23, 40, 0, 0, time.UTC)
	var lefts []time.Duration
	for d := -3 * time.Second; d <= 7*time.Second; d += 7*time.Millisecond + 300*time.Microsecond {
		lefts = append(lefts, d)
	}
	lefts = append(lefts, 5500*time.Millisecond, 5499*time.Millisecond, 999600*time.Microsecond,
		90*time.Minute+29500*time.Millisecond, 49*time.Minute+59*time.Second+600*time.Millisecond, -(61*time.Second + 500*time.Millisecond))
	relative := regexp.MustCompile(`^Deadline\|\S+ \((?:in (\S+)|(\S+) ago)\)$`)
	for _, left := range lefts {
		deadline := now.Add(left)
		alloc := &api.Allocation{ClientStatus: "running", MaxRunDeadline: deadline.UnixNano(), MaxRunDuration: time.Hour}
		ts := &api.TaskState{State: "running", MaxRunDuration: time.Hour, MaxRunScope: "task", MaxRunDeadline: deadline.UnixNano()}
		for name, rows := range map[string][]string{"allocation": maxRunRows(alloc, now), "task": taskMaxRunRows(alloc, ts, now)} {
			m := relative.FindStringSubmatch(rows[1])
			must.NotNil(t, m, must.Sprintf("%s, %s left: %q", name, left, rows[1]))
			if m[1] != "" {
				must.Eq(t, "Time Left|"+m[1], rows[2], must.Sprintf("%s, %s left", name, left))
			} else {
				must.Eq(t, "Time Left|none (exceeded "+m[2]+" ago)", rows[2], must.Sprintf("%s, %s left", name, left))
			}
		}
	}
}

// TestFormatAllocStatus_AfterTheDeadline compares alloc status's output
// for the README's tour after the deadline: the deadline, the tasks'
// start and end and their events to the millisecond, so that a kill half
// a millisecond after the deadline does not read a second late, and the
// task that exited 0 on its own before the deadline shows it not reached.
func TestFormatAllocStatus_AfterTheDeadline(t *testing.T) {
	created := time.Date(2026, 11, 30, 1, 9, 9, 999700000, time.UTC)
	deadline := created.Add(10 * time.Second)      // …:19.9997
	killed := deadline.Add(500 * time.Microsecond) // …:20.0002
	now := killed.Add(2 * time.Second)
	ms := func(t time.Time) string { return formatTimeMillis(t) }
	ev := func(at time.Time, typ, msg string) *api.TaskEvent {
		return &api.TaskEvent{Type: typ, Time: at.UnixNano(), DisplayMessage: msg}
	}
	started := created.Add(40 * time.Millisecond)
	alloc := &api.Allocation{
		ID: "39b3c532-0000-0000-0000-000000000000", EvalID: "7b15aacf-0000-0000-0000-000000000000",
		Name: "maxrun.maxrun[0]", NodeID: "4a42e987-0000-0000-0000-000000000000", NodeName: "vm", JobID: "maxrun",
		Job:          &api.Job{Version: ptr(uint64(0))},
		ClientStatus: "complete", ClientDescription: "allocation exceeded max_run_duration", DesiredStatus: "run",
		CreateTime: created.UnixNano(), ModifyTime: killed.UnixNano(),
		MaxRunDeadline: deadline.UnixNano(), MaxRunDuration: 10 * time.Second, MaxRunScope: "group", MaxRunExceeded: true,
		TaskStates: map[string]*api.TaskState{
			"maxrun": {
				State: "dead", StartedAt: started, FinishedAt: killed,
				MaxRunDuration: 10 * time.Second, MaxRunScope: "group", MaxRunDeadline: deadline.UnixNano(),
				Events: []*api.TaskEvent{
					ev(started, "Started", "Task started by client"),
					ev(killed, "Killing", "allocation exceeded max_run_duration"),
					ev(killed, "Terminated", "Exit Code: 130, Signal: 2"),
				},
			},
			"maxrun2": {
				State: "dead", StartedAt: started, FinishedAt: started.Add(2 * time.Second),
				MaxRunDuration: 10 * time.Second, MaxRunScope: "group", MaxRunDeadline: deadline.UnixNano(),
				Events: []*api.TaskEvent{
					ev(started, "Started", "Task started by client"),
					ev(started.Add(2*time.Second), "Terminated", "Exit Code: 0"),
				},
			},
		},
	}
	must.Eq(t, `ID                  = 39b3c532
Eval ID             = 7b15aacf
Name                = maxrun.maxrun[0]
Node ID             = 4a42e987
Node Name           = vm
Job ID              = maxrun
Job Version         = 0
Client Status       = complete (max_run_duration)
Client Description  = allocation exceeded max_run_duration
Desired Status      = run
Desired Description = <none>
Created             = 12s ago
Modified            = 2s ago
Max Run Duration    = 10s
Deadline            = `+ms(deadline)+` (2s ago)
Time Left           = none (exceeded 2s ago)

Task "maxrun" is "dead"
Task Events:
Started At       = `+ms(started)+` (12s ago)
Finished At      = `+ms(killed)+` (2s ago)
Total Restarts   = 0
Last Restart     = N/A
Max Run Duration = 10s (group)
Deadline         = `+ms(deadline)+` (2s ago)
Time Left        = none (exceeded 2s ago)

Recent Events:
Time                      Type        Description
`+ms(killed)+`  Killing     allocation exceeded max_run_duration
`+ms(killed)+`  Terminated  Exit Code: 130, Signal: 2
`+ms(started)+`  Started     Task started by client

Task "maxrun2" is "dead"
Task Events:
Started At       = `+ms(started)+` (12s ago)
Finished At      = `+ms(started.Add(2*time.Second))+` (10s ago)
Total Restarts   = 0
Last Restart     = N/A
Max Run Duration = 10s (group)
Deadline         = `+ms(deadline)+` (not reached: task dead)
Time Left        = none (task dead)

Recent Events:
Time                      Type        Description
`+ms(started.Add(2*time.Second))+`  Terminated  Exit Code: 0
`+ms(started)+`  Started     Task started by client`, formatAllocStatus(alloc, false, false, now))
	// A deadline at .9997 and a kill 0.5 ms after it read a millisecond
	// apart, not a second.
	must.StrContains(t, ms(deadline), ":19.999")
	must.StrContains(t, ms(killed), ":20.000")
}

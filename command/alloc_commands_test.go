package command

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/cli"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

func TestAllocStatus_ShowsAllocAndTaskEvents(t *testing.T) {
	a, addr := allocTestAgent(t)
	job := mockJob(t, a, "status-job", map[string]map[string]any{
		"one": {"run_for": "10ms"},
		"two": {"run_for": "20ms"},
	})
	alloc := placeMockAlloc(t, a, job)
	waitAllocState(t, a, alloc.ID, func(al *structs.Allocation) bool { return al.ClientStatus == structs.AllocClientStatusComplete })

	ui := cli.NewMockUi()
	code, out, errOut := runCommand(&AllocStatusCommand{Meta: Meta{Ui: ui}}, ui, "-address="+addr, alloc.ID[:6])
	must.Eq(t, 0, code, must.Sprint(errOut))

	for _, want := range []string{
		`(?m)^ID\s+= ` + alloc.ID[:8] + `$`,
		`(?m)^Eval ID\s+= ` + alloc.EvalID[:8] + `$`,
		`(?m)^Name\s+= status-job\.group\[0\]$`,
		`(?m)^Node ID\s+= ` + a.Client().NodeID()[:8] + `$`,
		`(?m)^Node Name\s+= alloc-cli-test$`,
		`(?m)^Job ID\s+= status-job$`,
		`(?m)^Client Status\s+= complete$`,
		`(?m)^Client Description\s+= All tasks have completed$`,
		`(?m)^Desired Status\s+= run$`,
		`(?m)^Created\s+= .+ ago$`,
		`(?m)^Modified\s+= .+ ago$`,
		`(?m)^Task "one" is "dead"$`,
		`(?m)^Task "two" is "dead"$`,
		`(?m)^Total Restarts\s+= 0$`,
		`(?m)^Time\s+Type\s+Description$`,
	} {
		must.RegexMatch(t, regexp.MustCompile(want), out)
	}
	// The keys come in Nomad's order.
	var keys []string
	for _, line := range strings.Split(out[:strings.Index(out, "\n\n")], "\n") {
		key, _, _ := strings.Cut(line, "=")
		keys = append(keys, strings.TrimSpace(key))
	}
	must.Eq(t, []string{"ID", "Eval ID", "Name", "Node ID", "Node Name", "Job ID", "Job Version", "Client Status",
		"Client Description", "Desired Status", "Desired Description", "Created", "Modified"}, keys)
	// Events newest first: Terminated above Started above Received.
	section := out[strings.Index(out, `Task "one"`):]
	section = section[strings.Index(section, "Recent Events:"):]
	iTerm, iStart, iRecv := strings.Index(section, "Terminated"), strings.Index(section, "Started"), strings.Index(section, "Received")
	must.Positive(t, iTerm)
	must.Less(t, iStart, iTerm)
	must.Less(t, iRecv, iStart)

	ui = cli.NewMockUi()
	code, out, _ = runCommand(&AllocStatusCommand{Meta: Meta{Ui: ui}}, ui, "-address="+addr, "-short", "-verbose", alloc.ID)
	must.Eq(t, 0, code)
	must.StrContains(t, out, "ID                  = "+alloc.ID)
	must.StrNotContains(t, out, "Recent Events")

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"x"}, "at least two characters"},
		{[]string{"ffffffff"}, `No allocation(s) with prefix or id "ffffffff" found`},
		{[]string{}, "This command takes one argument"},
	} {
		ui = cli.NewMockUi()
		code, _, errOut = runCommand(&AllocStatusCommand{Meta: Meta{Ui: ui}}, ui, append([]string{"-address=" + addr}, tc.args...)...)
		must.Eq(t, 1, code)
		must.StrContains(t, errOut, tc.want)
	}
}

func TestAllocLogs_PrintsTaskOutput(t *testing.T) {
	a, addr := allocTestAgent(t)
	single := mockJob(t, a, "logs-job", map[string]map[string]any{
		"web": {"run_for": "10ms", "stdout_string": "line 1\nline 2\nline 3\n"},
	})
	alloc := placeMockAlloc(t, a, single)
	waitAllocState(t, a, alloc.ID, func(al *structs.Allocation) bool { return al.ClientStatus == structs.AllocClientStatusComplete })

	cases := []struct {
		name string
		args []string
		want string
	}{
		{"whole log, task implied", []string{alloc.ID[:8]}, "line 1\nline 2\nline 3\n"},
		{"task named", []string{alloc.ID[:8], "web"}, "line 1\nline 2\nline 3\n"},
		{"tail lines", []string{"-tail", "-n", "2", alloc.ID}, "line 2\nline 3\n"},
		{"tail bytes", []string{"-tail", "-c", "7", alloc.ID}, "line 3\n"},
		{"tail default", []string{"-tail", alloc.ID}, "line 1\nline 2\nline 3\n"},
		{"follow a dead task", []string{"-f", alloc.ID}, "line 1\nline 2\nline 3\n"},
		{"follow a tail", []string{"-f", "-tail", "-n", "1", alloc.ID}, "line 3\n"},
		{"stderr", []string{"-stderr", alloc.ID}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ui := cli.NewMockUi()
			code, out, errOut := runCommand(&AllocLogsCommand{Meta: Meta{Ui: ui}}, ui, append([]string{"-address=" + addr}, tc.args...)...)
			must.Eq(t, 0, code, must.Sprint(errOut))
			must.Eq(t, tc.want, out)
		})
	}

	multi := mockJob(t, a, "multi-job", map[string]map[string]any{
		"a": {"run_for": "10ms"},
		"b": {"run_for": "10ms"},
	})
	two := placeMockAlloc(t, a, multi)
	waitAllocState(t, a, two.ID, func(al *structs.Allocation) bool { return al.ClientStatus == structs.AllocClientStatusComplete })
	errCases := []struct {
		name string
		args []string
		want string
	}{
		{"task needed", []string{two.ID}, "is running the following tasks:\n  * a\n  * b"},
		{"unknown task", []string{two.ID, "c"}, `Could not find task named "c"`},
		{"-n without -tail", []string{"-n", "3", two.ID, "a"}, "-n and -c need -tail"},
		{"-n and -c", []string{"-tail", "-n", "3", "-c", "4", two.ID, "a"}, "cannot be used together"},
		{"bad -n", []string{"-tail", "-n", "0", two.ID, "a"}, "-n must be a positive number"},
	}
	for _, tc := range errCases {
		t.Run(tc.name, func(t *testing.T) {
			ui := cli.NewMockUi()
			code, _, errOut := runCommand(&AllocLogsCommand{Meta: Meta{Ui: ui}}, ui, append([]string{"-address=" + addr}, tc.args...)...)
			must.Eq(t, 1, code)
			must.StrContains(t, errOut, tc.want)
		})
	}
}

func TestAllocSignalRestartStop(t *testing.T) {
	a, addr := allocTestAgent(t)
	job := mockJob(t, a, "control-job", map[string]map[string]any{"svc": {"run_for": "1h"}})
	alloc := placeMockAlloc(t, a, job)
	waitAllocState(t, a, alloc.ID, func(al *structs.Allocation) bool { return al.ClientStatus == structs.AllocClientStatusRunning })

	ui := cli.NewMockUi()
	code, _, errOut := runCommand(&AllocSignalCommand{Meta: Meta{Ui: ui}}, ui, "-address="+addr, "-s", "SIGHUP", alloc.ID[:8], "svc")
	must.Eq(t, 0, code, must.Sprint(errOut))
	waitAllocState(t, a, alloc.ID, func(al *structs.Allocation) bool {
		return hasEvent(al.TaskStates["svc"], structs.TaskSignaling)
	})

	ui = cli.NewMockUi()
	code, _, errOut = runCommand(&AllocSignalCommand{Meta: Meta{Ui: ui}}, ui, "-address="+addr, "-s", "SIGNOPE", alloc.ID)
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "unknown signal")

	ui = cli.NewMockUi()
	code, out, errOut := runCommand(&AllocRestartCommand{Meta: Meta{Ui: ui}}, ui, "-address="+addr, "-task", "svc", alloc.ID)
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.Eq(t, `Restarted task "svc" of allocation `+alloc.ID[:8]+" in place; the restart does not count against the restart policy.\n", out)
	waitAllocState(t, a, alloc.ID, func(al *structs.Allocation) bool {
		ts := al.TaskStates["svc"]
		return ts.Restarts == 1 && ts.State == structs.TaskStateRunning
	})

	// No task named: every running one.
	ui = cli.NewMockUi()
	code, out, errOut = runCommand(&AllocRestartCommand{Meta: Meta{Ui: ui}}, ui, "-address="+addr, alloc.ID[:8])
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.Eq(t, `Restarted task "svc" of allocation `+alloc.ID[:8]+" in place; the restart does not count against the restart policy.\n", out)
	waitAllocState(t, a, alloc.ID, func(al *structs.Allocation) bool {
		ts := al.TaskStates["svc"]
		return ts.Restarts == 2 && ts.State == structs.TaskStateRunning
	})

	ui = cli.NewMockUi()
	code, _, errOut = runCommand(&AllocRestartCommand{Meta: Meta{Ui: ui}}, ui, "-address="+addr, "-all-tasks", alloc.ID, "svc")
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "-all-tasks cannot be used with a task name")

	ui = cli.NewMockUi()
	code, out, errOut = runCommand(&JobAllocsCommand{Meta: Meta{Ui: ui}}, ui, "-address="+addr, "control")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, alloc.ID[:8])
	must.StrContains(t, out, "running")

	ui = cli.NewMockUi()
	code, out, errOut = runCommand(&AllocStopCommand{Meta: Meta{Ui: ui}}, ui, "-address="+addr, "-detach", alloc.ID)
	must.Eq(t, 0, code, must.Sprint(errOut))
	evalID := strings.TrimSpace(out)
	must.Eq(t, 36, len(evalID))
	stopped := waitAllocState(t, a, alloc.ID, func(al *structs.Allocation) bool { return al.ClientStatus == structs.AllocClientStatusComplete })
	must.Eq(t, structs.AllocDesiredStatusStop, stopped.DesiredStatus)
	must.True(t, hasEvent(stopped.TaskStates["svc"], structs.TaskKilling))
}

func hasEvent(ts *structs.TaskState, typ string) bool {
	if ts == nil {
		return false
	}
	for _, ev := range ts.Events {
		if ev.Type == typ {
			return true
		}
	}
	return false
}

func TestTaskEventTable_NewestFirst(t *testing.T) {
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).UnixNano()
	events := []*api.TaskEvent{
		{Type: "Received", Time: base, DisplayMessage: "Task received by client"},
		{Type: "Started", Time: base + int64(time.Second), DisplayMessage: "Task started by client"},
		{Type: "Terminated", Time: base + int64(2*time.Second), ExitCode: 7},
		{Type: "Driver Failure", Time: base + int64(3*time.Second), DriverError: "boom | bang\nsecond line"},
	}
	got := taskEventTable(events)
	lines := strings.Split(got, "\n")
	must.Len(t, 5, lines)
	must.RegexMatch(t, regexp.MustCompile(`^Time\s+Type\s+Description$`), lines[0])
	must.StrContains(t, lines[1], "Driver Failure")
	must.StrContains(t, lines[1], "boom / bang second line")
	must.StrContains(t, lines[2], "Exit Code: 7")
	must.StrContains(t, lines[3], "Task started by client")
	must.StrContains(t, lines[4], "Task received by client")
}

func TestLastLines(t *testing.T) {
	cases := []struct {
		in   string
		n    int
		want string
	}{
		{"a\nb\nc\n", 2, "b\nc\n"},
		{"a\nb\nc", 2, "b\nc"},
		{"a\nb\n", 5, "a\nb\n"},
		{"", 3, ""},
		{"only\n", 1, "only\n"},
	}
	for _, tc := range cases {
		must.Eq(t, tc.want, string(lastLines([]byte(tc.in), tc.n)), must.Sprintf("%q last %d", tc.in, tc.n))
	}
}

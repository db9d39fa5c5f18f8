package command

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/command/agent"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

// waitJobSpec is a batch job of count allocations that are never
// rescheduled, so that a test decides alone how each one ends.
func waitJobSpec(t *testing.T, id string, count int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), id+".hcl")
	spec := `job "` + id + `" {
  type = "batch"
  group "g" {
    count = ` + string(rune('0'+count)) + `
    reschedule {
      attempts  = 0
      unlimited = false
    }
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
    }
  }
}
`
	must.NoError(t, os.WriteFile(path, []byte(spec), 0o644))
	return path
}

// runWaiting starts `job run -wait` with args on path and returns a
// channel that receives its result once it exits.
func runWaiting(t *testing.T, addr, path string, args ...string) <-chan cliResult {
	t.Helper()
	done := make(chan cliResult, 1)
	go func() {
		var r cliResult
		r.code, r.out, r.errOut = runCLI(t, "", append(append([]string{"job", "run", "-address", addr, "-wait"}, args...), path)...)
		done <- r
	}()
	return done
}

// result waits for the command runWaiting started, failing the test if
// it has not exited within cliTimeout.
func result(t *testing.T, done <-chan cliResult) cliResult {
	t.Helper()
	select {
	case r := <-done:
		return r
	case <-time.After(cliTimeout):
		t.Fatalf("job run -wait did not exit within %s", cliTimeout)
		return cliResult{}
	}
}

type cliResult struct {
	code        int
	out, errOut string
}

// placedAllocs waits until the job has n allocations on the server and
// returns them.
func placedAllocs(t *testing.T, a *agent.Agent, jobID string, n int) []*structs.Allocation {
	t.Helper()
	var allocs []*structs.Allocation
	waitfor.True(t, "the job's allocations", func() bool {
		var err error
		allocs, err = a.Server().State().AllocsByJob(nil, structs.DefaultNamespace, jobID)
		must.NoError(t, err)
		return len(allocs) == n
	})
	return allocs
}

// endAlloc reports an allocation's end as its client would.
func endAlloc(t *testing.T, a *agent.Agent, alloc *structs.Allocation, status, description string, tasks map[string]*structs.TaskState) {
	t.Helper()
	update := &structs.Allocation{ID: alloc.ID, ClientStatus: status, ClientDescription: description, TaskStates: tasks}
	_, err := a.Server().UpdateAllocsFromClient(context.Background(), []*structs.Allocation{update})
	must.NoError(t, err)
}

func deadTask(failed bool, exitCode int) map[string]*structs.TaskState {
	return map[string]*structs.TaskState{"t": {
		State:  structs.TaskStateDead,
		Failed: failed,
		Events: []*structs.TaskEvent{{Type: "Started"}, {Type: "Terminated", ExitCode: exitCode}},
	}}
}

// The wait follows the allocations until each has ended, printing each
// end as it happens, and exits 0 when all completed.
func TestJobRunWait_allComplete(t *testing.T) {
	a, addr := testAgent(t)
	registerTestNode(t, a, testNodeID, "worker-1", structs.NodeSchedulingEligible)
	done := runWaiting(t, addr, waitJobSpec(t, "wait-ok", 2))

	allocs := placedAllocs(t, a, "wait-ok", 2)
	endAlloc(t, a, allocs[0], structs.AllocClientStatusComplete, "All tasks have completed", deadTask(false, 0))
	select {
	case r := <-done:
		t.Fatalf("exited with one allocation still running: %d\n%s%s", r.code, r.out, r.errOut)
	default:
	}
	endAlloc(t, a, allocs[1], structs.AllocClientStatusComplete, "All tasks have completed", deadTask(false, 0))

	r := result(t, done)
	must.Eq(t, exitOK, r.code, must.Sprint(r.out, r.errOut))
	must.RegexMatch(t, regexp.MustCompile(`(?s)`+
		`==> \S+: Evaluation "[0-9a-f]{8}" finished with status "complete"\n`+
		`==> \S+: Waiting for job "wait-ok" to finish\n`+
		`    \S+: Allocation "[0-9a-f]{8}" complete\n`+
		`    \S+: Allocation "[0-9a-f]{8}" complete\n`+
		`==> \S+: Job "wait-ok" finished: 2 allocations, 2 complete\n$`), r.out)

	// Run again unchanged: nothing new starts, and the wait ends at once
	// with how the allocations had ended.
	code, out, errOut := runCLIWithin(t, "", "job", "run", "-address", addr, "-wait", waitJobSpec(t, "wait-ok", 2))
	must.Eq(t, exitOK, code, must.Sprint(out, errOut))
	must.RegexMatch(t, regexp.MustCompile(`(?s)`+
		`==> \S+: Waiting for job "wait-ok" to finish\n`+
		`    \S+: Job "wait-ok" had already finished; its allocations ended as follows\n`+
		`    \S+: Allocation "[0-9a-f]{8}" complete\n`+
		`    \S+: Allocation "[0-9a-f]{8}" complete\n`+
		`==> \S+: Job "wait-ok" finished: 2 allocations, 2 complete\n$`), out)
}

// A failed allocation makes the wait exit 1, naming the task and how it
// ended; a failure wins over a timeout.
func TestJobRunWait_failureExitsOne(t *testing.T) {
	a, addr := testAgent(t)
	registerTestNode(t, a, testNodeID, "worker-1", structs.NodeSchedulingEligible)
	done := runWaiting(t, addr, waitJobSpec(t, "wait-fail", 2))

	allocs := placedAllocs(t, a, "wait-fail", 2)
	endAlloc(t, a, allocs[0], structs.AllocClientStatusComplete, structs.AllocTimeoutReasonMaxRunDuration, deadTask(false, 130))
	endAlloc(t, a, allocs[1], structs.AllocClientStatusFailed, "Failed tasks", deadTask(true, 3))

	r := result(t, done)
	must.Eq(t, exitError, r.code, must.Sprint(r.out, r.errOut))
	must.StrContains(t, r.out, `: Allocation "`+allocs[1].ID[:8]+`" failed: Failed tasks; task "t": Exit Code: 3`+"\n")
	must.StrContains(t, r.out, `: Allocation "`+allocs[0].ID[:8]+`" timed out: allocation exceeded max_run_duration (client status complete)`+"\n")
	must.StrContains(t, r.out, `: Job "wait-fail" finished: 2 allocations, 1 timed out, 1 failed`+"\n")
}

// An allocation that max_run_duration stopped, the group's or a task's,
// makes the wait exit 3, with max_run_outcome = "failed" too.
func TestJobRunWait_deadlineExitsThree(t *testing.T) {
	a, addr := testAgent(t)
	registerTestNode(t, a, testNodeID, "worker-1", structs.NodeSchedulingEligible)
	done := runWaiting(t, addr, waitJobSpec(t, "wait-deadline", 2), "-verbose")

	allocs := placedAllocs(t, a, "wait-deadline", 2)
	// The group's deadline, with max_run_outcome = "failed".
	endAlloc(t, a, allocs[0], structs.AllocClientStatusFailed, structs.AllocTimeoutReasonMaxRunDuration, deadTask(false, 130))
	// A task's own deadline.
	task := deadTask(false, 130)
	task["t"].MaxRunExceeded = true
	endAlloc(t, a, allocs[1], structs.AllocClientStatusComplete, "task exceeded max_run_duration", task)

	r := result(t, done)
	must.Eq(t, exitDeadline, r.code, must.Sprint(r.out, r.errOut))
	must.StrContains(t, r.out, `: Allocation "`+allocs[0].ID+`" timed out: allocation exceeded max_run_duration (client status failed)`+"\n")
	must.StrContains(t, r.out, `: Allocation "`+allocs[1].ID+`" timed out: task exceeded max_run_duration (client status complete)`+"\n")
	must.StrContains(t, r.out, `: Job "wait-deadline" finished: 2 allocations, 2 timed out`+"\n")
}

// An allocation whose deadline passed while a task was failing (its image
// could not be pulled, say, and it waited to restart) failed: the wait
// says so, names the failure, and exits 1, not 3.
func TestJobRunWait_deadlineWhileFailingIsAFailure(t *testing.T) {
	a, addr := testAgent(t)
	registerTestNode(t, a, testNodeID, "worker-1", structs.NodeSchedulingEligible)
	done := runWaiting(t, addr, waitJobSpec(t, "wait-failing", 1))

	allocs := placedAllocs(t, a, "wait-failing", 1)
	task := map[string]*structs.TaskState{"t": {State: structs.TaskStateDead, Events: []*structs.TaskEvent{
		{Type: structs.TaskDriverFailure, DisplayMessage: "Failed to pull image"},
		{Type: structs.TaskRestarting},
		{Type: structs.TaskKilling, DisplayMessage: structs.AllocTimeoutReasonMaxRunDuration},
	}}}
	endAlloc(t, a, allocs[0], structs.AllocClientStatusFailed, structs.AllocTimeoutWhileFailing("t", "Failed to pull image"), task)

	r := result(t, done)
	must.Eq(t, exitError, r.code, must.Sprint(r.out, r.errOut))
	must.StrContains(t, r.out, `: Allocation "`+allocs[0].ID[:8]+`" failed: allocation exceeded max_run_duration while task "t" was failing: Failed to pull image`+"\n")
	must.StrContains(t, r.out, `: Job "wait-failing" finished: 1 allocation, 1 failed`+"\n")
}

// -wait-timeout gives up, exiting 4, and the job goes on.
func TestJobRunWait_timeoutExitsFour(t *testing.T) {
	a, addr := testAgent(t)
	registerTestNode(t, a, testNodeID, "worker-1", structs.NodeSchedulingEligible)
	r := result(t, runWaiting(t, addr, waitJobSpec(t, "wait-timeout", 1), "-wait-timeout", "2s"))
	must.Eq(t, exitWaitTimeout, r.code, must.Sprint(r.out, r.errOut))
	must.StrContains(t, r.out, `: Stopped waiting at -wait-timeout: job "wait-timeout" goes on`+"\n")
	job, err := a.Server().State().JobByID(nil, structs.DefaultNamespace, "wait-timeout")
	must.NoError(t, err)
	must.False(t, job.Stop)
}

// -wait refuses what would never end or is not followed, before anything
// is submitted.
func TestJobRunWait_refusals(t *testing.T) {
	service := filepath.Join(t.TempDir(), "svc.hcl")
	must.NoError(t, os.WriteFile(service, []byte(`job "svc" {
  group "g" {
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
    }
  }
}
`), 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-wait", service}, "-wait is for batch and sysbatch jobs: a service job runs until it is stopped\n"},
		{[]string{"-wait", "-detach", writeJob(t, "b", "")}, "-wait and -detach exclude each other: -detach returns at once\n"},
		{[]string{"-wait-timeout", "1m", writeJob(t, "b", "")}, "-wait-timeout needs -wait\n"},
		{[]string{"-wait", writeJob(t, "p", `periodic { crons = ["@daily"] }`)}, "-wait does not apply to a periodic job"},
	} {
		code, out, errOut := runCLI(t, "", append([]string{"job", "run", "-address", freeAddress(t)}, tc.args...)...)
		must.Eq(t, exitError, code, must.Sprint(tc.args))
		must.Eq(t, "", out)
		must.StrHasPrefix(t, tc.want, errOut)
	}
}

// Against a follower the wait finds the job and its allocations, and
// follows them to the end.
func TestJobRunWait_throughAFollower(t *testing.T) {
	f := testFollower(t)
	registerTestNode(t, f, testNodeID, "worker-1", structs.NodeSchedulingEligible)
	done := runWaiting(t, "http://"+f.HTTPAddr(), waitJobSpec(t, "wait-follower", 1))
	alloc := placedAllocs(t, f, "wait-follower", 1)[0]
	endAlloc(t, f, alloc, structs.AllocClientStatusComplete, "All tasks have completed", deadTask(false, 0))
	r := result(t, done)
	must.Eq(t, exitOK, r.code, must.Sprint(r.out, r.errOut))
	must.StrContains(t, r.out, `: Job "wait-follower" finished: 1 allocation, 1 complete`+"\n")
}

// Ctrl-C ends the wait with 130 and leaves the job running.
func TestJobRunWait_interruptExits130(t *testing.T) {
	a, addr := testAgent(t)
	registerTestNode(t, a, testNodeID, "worker-1", structs.NodeSchedulingEligible)
	runDetached(t, addr, waitJobSpec(t, "wait-interrupt", 1))
	placedAllocs(t, a, "wait-interrupt", 1)

	client, err := (&Meta{address: addr}).Client()
	must.NoError(t, err)
	ui := newTestUi()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- newJobWaiter(newEvalMonitor(ui, client, false), "wait-interrupt", "", 0).wait(ctx) }()
	waitfor.True(t, "the wait to begin", func() bool {
		return strings.Contains(uiOutput(ui), `Waiting for job "wait-interrupt" to finish`)
	})
	cancel()
	must.Eq(t, exitInterrupted, <-done)
	must.StrContains(t, uiOutput(ui), `: Stopped waiting: job "wait-interrupt" goes on`+"\n")
}

// A job stopped while the wait follows it ends the wait with 1 once its
// allocations have stopped: they did not complete their work.
func TestJobRunWait_stoppedExitsOne(t *testing.T) {
	a, addr := testAgent(t)
	registerTestNode(t, a, testNodeID, "worker-1", structs.NodeSchedulingEligible)
	done := runWaiting(t, addr, waitJobSpec(t, "wait-stopped", 1))
	alloc := placedAllocs(t, a, "wait-stopped", 1)[0]
	code, out, errOut := runCLIWithin(t, "", "job", "stop", "-address", addr, "-purge", "-yes", "wait-stopped")
	must.Eq(t, 0, code, must.Sprint(out, errOut))
	// The client stops the allocation, as it was told.
	waitfor.True(t, "the allocation to be told to stop", func() bool {
		got, err := a.Server().State().AllocByID(nil, alloc.ID)
		must.NoError(t, err)
		return got.DesiredStatus == structs.AllocDesiredStatusStop
	})
	endAlloc(t, a, alloc, structs.AllocClientStatusComplete, "All tasks have completed", deadTask(false, 130))

	r := result(t, done)
	must.Eq(t, exitError, r.code, must.Sprint(r.out, r.errOut))
	must.RegexMatch(t, regexp.MustCompile(`: Allocation "`+alloc.ID[:8]+`" stopped: \S.*\n`), r.out)
	must.StrContains(t, r.out, `: Job "wait-stopped" finished: 1 allocation, 1 stopped`+"\n")
}

// A job that is gone when the wait begins is said to be purged.
func TestJobRunWait_purgedJob(t *testing.T) {
	_, addr := testAgent(t)
	client, err := (&Meta{address: addr}).Client()
	must.NoError(t, err)
	ui := newTestUi()
	code := newJobWaiter(newEvalMonitor(ui, client, false), "gone", "", 0).wait(context.Background())
	must.Eq(t, exitError, code)
	must.Eq(t, "Job \"gone\" was purged while waiting for it\n", ui.ErrorWriter.String())
}

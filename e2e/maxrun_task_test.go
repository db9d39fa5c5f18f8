package e2e

import (
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

// taskExceededDescription is the Killing event's display message of a task
// its own max_run_duration stopped.
const taskExceededDescription = "task exceeded max_run_duration"

// mustKilledByOwnLimit checks that the task's own max_run_duration ended
// it, within killWithin of RunnerStartedAt plus budget, and returns its
// state.
func mustKilledByOwnLimit(t *testing.T, alloc *api.Allocation, name string, budget time.Duration) *api.TaskState {
	t.Helper()
	ts := task(t, alloc, name)
	must.Eq(t, api.TaskStateDead, ts.State)
	must.True(t, ts.MaxRunExceeded, must.Sprintf("task %q: MaxRunExceeded unset", name))
	must.False(t, ts.Failed)
	must.Eq(t, 0, ts.Restarts)
	killing := event(ts, "Killing")
	must.NotNil(t, killing, must.Sprintf("task %q has no Killing event: %v", name, events(ts)))
	must.Eq(t, taskExceededDescription, killing.DisplayMessage)
	must.False(t, ts.RunnerStartedAt.IsZero())
	deadline := ts.RunnerStartedAt.Add(budget)
	must.Eq(t, deadline.UnixNano(), ts.MaxRunDeadline, must.Sprint("the task's deadline is its RunnerStartedAt plus its budget"))
	must.Eq(t, "task", ts.MaxRunScope)
	mustFinishWithin(t, ts, deadline, killWithin)
	return ts
}

// TestMaxRun_TaskLimit runs tasks with a max_run_duration of their own on
// a dev agent, over HTTP and the CLI.
func TestMaxRun_TaskLimit(t *testing.T) {
	t.Parallel()
	a := startDevAgent(t)

	t.Run("kills one task while its sibling finishes", func(t *testing.T) {
		t.Parallel()
		at := a.with(t)
		at.runJob(`job "tasklimit" {
  type = "batch"
  group "g" {
    task "slow" {
      driver           = "raw_exec"
      max_run_duration = "3s"
      config { command = "/bin/sleep" args = ["1000"] }
    }
    task "sibling" {
      driver = "raw_exec"
      config { command = "/bin/sleep" args = ["6"] }
    }
  }
}`)
		running := at.waitRunning("tasklimit")
		status := at.mustCLI("alloc status", running.ID)
		must.RegexMatch(t, regexp.MustCompile(`Max Run Duration\s+= 3s \(task\)`), status)

		done := at.waitAlloc(running.ID, "complete", 40*time.Second, clientStatus(api.AllocClientStatusComplete))
		slow := mustKilledByOwnLimit(t, done, "slow", 3*time.Second)
		sibling := task(t, done, "sibling")
		must.Nil(t, event(sibling, "Killing"), must.Sprintf("the sibling ended on its own: %v", events(sibling)))
		must.Eq(t, 0, event(sibling, "Terminated").ExitCode)
		must.True(t, sibling.FinishedAt.After(slow.FinishedAt.Add(2*time.Second)), must.Sprint("the sibling ran on"))
		must.NotEq(t, exceededDescription, done.ClientDescription)
		must.False(t, done.MaxRunExceeded)
		at.waitJobStatus("tasklimit", "dead", 10*time.Second)

		status = at.mustCLI("alloc status", running.ID)
		must.RegexMatch(t, regexp.MustCompile(`Time Left\s+= none \(exceeded \d+m?s ago\)`), status)
		must.StrContains(t, status, taskExceededDescription)
	})

	t.Run("task and group limits: the earlier wins", func(t *testing.T) {
		t.Parallel()
		at := a.with(t)
		at.runJob(`job "bothlimits" {
  type = "batch"
  group "g" {
    max_run_duration = "8s"
    task "short" {
      driver           = "raw_exec"
      max_run_duration = "3s"
      config { command = "/bin/sleep" args = ["1000"] }
    }
    task "long" {
      driver           = "raw_exec"
      max_run_duration = "1h"
      config { command = "/bin/sleep" args = ["1000"] }
    }
  }
}`)
		done := at.waitAllocs("bothlimits", 1, "terminal", 40*time.Second, terminal)[0]
		mustKilledByOwnLimit(t, done, "short", 3*time.Second)
		mustEndByDeadline(t, done)
		deadline := deadlineOf(t, done, 8*time.Second)
		mustBeKilledByDeadline(t, done, "long")
		long := task(t, done, "long")
		must.False(t, long.MaxRunExceeded)
		must.Eq(t, "group", long.MaxRunScope)
		mustFinishWithin(t, long, deadline, killWithin)
		at.waitJobStatus("bothlimits", "dead", 10*time.Second)
	})
}

// TestMaxRun_TaskLimitSurvivesAgentRestart SIGKILLs the agent at 40% of a
// task's own 10 s budget and starts it again on the same data dir: the
// task is killed at its original deadline, RunnerStartedAt + 10 s.
func TestMaxRun_TaskLimitSurvivesAgentRestart(t *testing.T) {
	t.Parallel()
	const budget = 10 * time.Second
	dir := t.TempDir()
	first := startDataDirAgent(t, dir, 0, 0)
	first.runJob(`job "taskrestart" {
  type = "batch"
  group "g" {
    task "t" {
      driver           = "raw_exec"
      max_run_duration = "10s"
      config { command = "/bin/sleep" args = ["1000"] }
    }
  }
}`)
	running := first.waitRunning("taskrestart")
	begun := task(t, running, "t").RunnerStartedAt
	must.False(t, begun.IsZero())
	if time.Since(begun) > budget*4/10 {
		t.Fatalf("the task took %s to run, past 40%% of its budget", time.Since(begun))
	}
	sleepUntil(begun.Add(budget * 4 / 10))
	first.Kill()
	second := startDataDirAgent(t, dir, first.HTTPPort, first.RPCPort)

	done := second.waitAlloc(running.ID, "terminal", budget+30*time.Second, terminal)
	ts := task(t, done, "t")
	must.True(t, ts.MaxRunExceeded)
	must.True(t, ts.RunnerStartedAt.Equal(begun), must.Sprint("the anchor survives the restart"))
	off := ts.FinishedAt.Sub(begun.Add(budget))
	t.Logf("task finished %s from its original deadline", off)
	must.True(t, off >= -restartTolerance && off <= restartTolerance, must.Sprintf(
		"task finished %s from its original deadline; want within ±%s", off, restartTolerance))
	must.Eq(t, 1, countEvents(ts, "Started"), must.Sprintf("re-attached, not started again: %v", events(ts)))
}

// TestMaxRun_TaskEnvironment runs tasks that print their deadline
// variables: each sees the first deadline that applies to it, in Unix
// seconds, and its budget in seconds, also through interpolation.
func TestMaxRun_TaskEnvironment(t *testing.T) {
	t.Parallel()
	a := startDevAgent(t)
	a.runJob(`job "env" {
  type = "batch"
  group "g" {
    max_run_duration = "1h"
    task "group" {
      driver = "raw_exec"
      config {
        command = "/bin/sh"
        args    = ["-c", "echo \"$NOMAD_MAX_RUN_DEADLINE $NOMAD_MAX_RUN_DURATION ${NOMAD_MAX_RUN_DEADLINE}\""]
      }
    }
    task "own" {
      driver           = "raw_exec"
      max_run_duration = "90s"
      config {
        command = "/bin/sh"
        args    = ["-c", "echo \"$NOMAD_MAX_RUN_DEADLINE $NOMAD_MAX_RUN_DURATION ${NOMAD_MAX_RUN_DEADLINE}\""]
      }
    }
  }
}`)
	done := a.waitAllocs("env", 1, "complete", 40*time.Second, clientStatus(api.AllocClientStatusComplete))[0]
	deadline := deadlineOf(t, done, time.Hour)
	for name, want := range map[string]struct {
		deadline time.Time
		budget   string
	}{
		"group": {deadline, "3600"},
		"own":   {task(t, done, "own").RunnerStartedAt.Add(90 * time.Second), "90"},
	} {
		ts := task(t, done, name)
		must.Eq(t, want.deadline.UnixNano(), ts.MaxRunDeadline, must.Sprintf("task %q", name))
		unix := strconv.FormatInt(want.deadline.Unix(), 10)
		out := a.mustCLI("alloc logs", done.ID, name)
		must.Eq(t, unix+" "+want.budget+" "+unix+"\n", out, must.Sprintf("task %q printed %q", name, out))
	}
}

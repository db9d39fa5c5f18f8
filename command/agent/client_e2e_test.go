package agent

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/internal/waitfor"
)

// rawExecTask is a raw_exec task as the wire JSON has it.
func rawExecTask(name, command string, args ...string) map[string]any {
	return map[string]any{
		"Name":   name,
		"Driver": "raw_exec",
		"Config": map[string]any{"command": command, "args": args},
	}
}

// waitJobAllocs polls the job's allocations over HTTP until cond holds.
func waitJobAllocs(t *testing.T, a *Agent, jobID, what string, cond func([]*api.AllocationListStub) bool) []*api.AllocationListStub {
	t.Helper()
	var stubs []*api.AllocationListStub
	waitfor.True(t, fmt.Sprintf("job %s: %s", jobID, what), func() bool {
		stubs = nil
		get(t, a, "/v1/job/"+jobID+"/allocations", &stubs)
		return cond(stubs)
	}, wait.Timeout(60*time.Second), wait.Gap(50*time.Millisecond))
	return stubs
}

// TestE2E_BatchJobRunsToCompletion runs the DESIGN.md example, without its
// max_run_duration and with commands that end, through the HTTP API of a
// dev agent: the scheduler places it on the agent's own client, raw_exec
// runs both tasks, and the allocation ends complete with its output in the
// task's log.
func TestE2E_BatchJobRunsToCompletion(t *testing.T) {
	a := testClientAgent(t)
	job := map[string]any{
		"ID": "maxrun", "Name": "maxrun", "Type": "batch", "Datacenters": []string{"dc1"},
		"TaskGroups": []any{map[string]any{
			"Name": "maxrun", "Count": 1,
			"Tasks": []any{
				rawExecTask("maxrun", "/bin/sh", "-c", "echo hello from maxrun; sleep 1"),
				rawExecTask("maxrun2", "/bin/sleep", "2s"),
			},
		}},
	}
	registerJob(t, a, job)

	stubs := waitJobAllocs(t, a, "maxrun", "allocation complete", func(s []*api.AllocationListStub) bool {
		return len(s) == 1 && s[0].ClientStatus == api.AllocClientStatusComplete
	})
	var alloc api.Allocation
	get(t, a, "/v1/allocation/"+stubs[0].ID, &alloc)
	must.Eq(t, a.Client().NodeID(), alloc.NodeID)
	for _, task := range []string{"maxrun", "maxrun2"} {
		ts := alloc.TaskStates[task]
		must.NotNil(t, ts, must.Sprintf("task %s", task))
		must.Eq(t, "dead", ts.State)
		must.False(t, ts.Failed)
		var exit *api.TaskEvent
		for _, ev := range ts.Events {
			if ev.Type == "Terminated" {
				exit = ev
			}
		}
		must.NotNil(t, exit, must.Sprintf("task %s has no Terminated event", task))
		must.Eq(t, "0", exit.Details["exit_code"])
	}

	resp := do(t, a, http.MethodGet, "/v1/client/fs/logs/"+alloc.ID+"?task=maxrun&type=stdout&plain=true", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	must.Eq(t, "hello from maxrun\n", string(resp.body))

	var jobOut api.Job
	waitfor.True(t, "the job to be dead", func() bool {
		get(t, a, "/v1/job/maxrun", &jobOut)
		return jobOut.Status != nil && *jobOut.Status == "dead"
	}, wait.Gap(50*time.Millisecond))
}

// TestE2E_FailedTaskIsRescheduled runs a batch job whose task fails: its
// allocation ends failed, and the scheduler places a replacement that
// points back at it.
func TestE2E_FailedTaskIsRescheduled(t *testing.T) {
	a := testClientAgent(t)
	job := map[string]any{
		"ID": "fails", "Name": "fails", "Type": "batch", "Datacenters": []string{"dc1"},
		"TaskGroups": []any{map[string]any{
			"Name": "fails", "Count": 1,
			"RestartPolicy": map[string]any{
				"Attempts": 0, "Interval": int64(time.Hour), "Delay": int64(time.Second), "Mode": "fail",
			},
			"ReschedulePolicy": map[string]any{
				"Attempts": 1, "Interval": int64(time.Hour), "Delay": int64(time.Second),
				"DelayFunction": "constant", "Unlimited": false,
			},
			"Tasks": []any{rawExecTask("boom", "/bin/sh", "-c", "echo failing >&2; exit 3")},
		}},
	}
	registerJob(t, a, job)

	stubs := waitJobAllocs(t, a, "fails", "a failed allocation and its replacement", func(s []*api.AllocationListStub) bool {
		failed := 0
		for _, stub := range s {
			if stub.ClientStatus == api.AllocClientStatusFailed {
				failed++
			}
		}
		return failed >= 1 && len(s) >= 2
	})
	var first *api.AllocationListStub
	for _, s := range stubs {
		if s.NextAllocation != "" {
			first = s
		}
	}
	must.NotNil(t, first, must.Sprint("no allocation points at its replacement"))
	must.Eq(t, api.AllocClientStatusFailed, first.ClientStatus)
	ts := first.TaskStates["boom"]
	must.True(t, ts.Failed)

	var next api.Allocation
	get(t, a, "/v1/allocation/"+first.NextAllocation, &next)
	must.Eq(t, first.ID, next.PreviousAllocation)

	resp := do(t, a, http.MethodGet, "/v1/client/fs/logs/"+first.ID+"?task=boom&type=stderr&plain=true", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	must.Eq(t, "failing\n", string(resp.body))
}

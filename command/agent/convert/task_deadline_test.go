package convert

import (
	"encoding/json"
	"testing"
	"time"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

// TestAllocToAPI_taskStatesCarryTheirDeadlines: each task's state on the
// wire says the deadline that applies to the task first, whose it is, and
// whether the task's own limit killed it; the official client still reads
// the allocation.
func TestAllocToAPI_taskStatesCarryTheirDeadlines(t *testing.T) {
	alloc := maxRunAlloc(t)
	created := time.Unix(0, alloc.CreateTime)
	alloc.Job.TaskGroups[0].LookupTask("main").MaxRunDuration = new(5 * time.Second)
	begun := created.Add(2 * time.Second)
	alloc.TaskStates = map[string]*structs.TaskState{
		"maxrun": {State: structs.TaskStateRunning, RunnerStartedAt: created},
		"main":   {State: structs.TaskStateDead, RunnerStartedAt: begun, MaxRunExceeded: true},
	}

	for _, states := range []map[string]*api.TaskState{AllocToAPI(alloc).TaskStates, allocStub(alloc).TaskStates} {
		sidecar := states["maxrun"]
		must.Eq(t, created.Add(10*time.Second).UnixNano(), sidecar.MaxRunDeadline)
		must.Eq(t, 10*time.Second, sidecar.MaxRunDuration)
		must.Eq(t, "group", sidecar.MaxRunScope)
		must.False(t, sidecar.MaxRunExceeded)

		main := states["main"]
		must.Eq(t, begun.Add(5*time.Second).UnixNano(), main.MaxRunDeadline)
		must.Eq(t, 5*time.Second, main.MaxRunDuration)
		must.Eq(t, "task", main.MaxRunScope)
		must.True(t, main.MaxRunExceeded)
		must.True(t, main.RunnerStartedAt.Equal(begun))
	}

	// A task with a max_run_warning shows when it is due, and when it went.
	alloc.Job.TaskGroups[0].LookupTask("maxrun").MaxRunWarning = &structs.MaxRunWarning{Signal: "SIGUSR1", Before: 3 * time.Second}
	sentAt := created.Add(7 * time.Second)
	alloc.TaskStates["maxrun"].MaxRunWarnedAt = sentAt
	sidecar := AllocToAPI(alloc).TaskStates["maxrun"]
	must.Eq(t, created.Add(7*time.Second).UnixNano(), sidecar.MaxRunWarningAt)
	must.True(t, sidecar.MaxRunWarnedAt.Equal(sentAt))
	must.Eq(t, int64(0), AllocToAPI(alloc).TaskStates["main"].MaxRunWarningAt, must.Sprint("main has no warning"))

	b, err := json.Marshal(AllocToAPI(alloc))
	must.NoError(t, err)
	var nomads nomadapi.Allocation
	must.NoError(t, json.Unmarshal(b, &nomads))
	must.Eq(t, "dead", nomads.TaskStates["main"].State)

	// A task not begun yet shows its budget without a deadline when no
	// other applies.
	alloc.Job.TaskGroups[0].MaxRunDuration = nil
	alloc.TaskStates["main"] = &structs.TaskState{State: structs.TaskStatePending}
	main := AllocToAPI(alloc).TaskStates["main"]
	must.Eq(t, int64(0), main.MaxRunDeadline)
	must.Eq(t, 5*time.Second, main.MaxRunDuration)
	must.Eq(t, "task", main.MaxRunScope)
	sidecar = AllocToAPI(alloc).TaskStates["maxrun"]
	must.Eq(t, int64(0), sidecar.MaxRunDeadline, must.Sprint("nothing applies to the sidecar"))
	must.Eq(t, int64(0), sidecar.MaxRunWarningAt)
	must.Eq(t, 0, sidecar.MaxRunDuration)
	must.Eq(t, "", sidecar.MaxRunScope)
}

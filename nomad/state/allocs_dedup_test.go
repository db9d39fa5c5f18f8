package state

import (
	"reflect"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

func oneMap(a, b any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// Allocations of one plan, and one client's update of them, each decoded
// with copies of everything, are stored sharing what they have in common.
func TestAllocs_storedSharingWhatABatchHasInCommon(t *testing.T) {
	s := newStore(t)
	job := mustUpsertJob(t, s, 5, testJob("example"))
	placed := func() *structs.Allocation {
		a := testAlloc(job, "eval-1", "node-1")
		a.Resources = &structs.Resources{CPU: 100, MemoryMB: 64}
		a.TaskResources = map[string]*structs.Resources{"sleep": {CPU: 100, MemoryMB: 64}}
		a.Metrics = &structs.AllocMetric{NodesAvailable: map[string]int{"dc1": 1}}
		return a
	}
	a, b := placed(), placed()
	must.NoError(t, s.UpsertAllocs(10, []*structs.Allocation{a, b}))

	states := func() map[string]*structs.TaskState {
		return map[string]*structs.TaskState{"sleep": {State: structs.TaskStateRunning, Events: []*structs.TaskEvent{
			{Type: structs.TaskSetup, Message: "Building Task Directory", Details: map[string]string{"message": "Building Task Directory"}},
		}}}
	}
	must.NoError(t, s.UpdateAllocsFromClient(11, []*structs.Allocation{
		{ID: a.ID, ClientStatus: structs.AllocClientStatusRunning, TaskStates: states()},
		{ID: b.ID, ClientStatus: structs.AllocClientStatusRunning, TaskStates: states()},
	}))

	gotA, err := s.AllocByID(nil, a.ID)
	must.NoError(t, err)
	gotB, err := s.AllocByID(nil, b.ID)
	must.NoError(t, err)
	must.True(t, gotA.Resources == gotB.Resources)
	must.True(t, oneMap(gotA.TaskResources, gotB.TaskResources))
	must.True(t, oneMap(gotA.Metrics.NodesAvailable, gotB.Metrics.NodesAvailable))
	must.Eq(t, map[string]*structs.Resources{"sleep": {CPU: 100, MemoryMB: 64}}, gotA.TaskResources)
	evA, evB := gotA.TaskStates["sleep"].Events[0], gotB.TaskStates["sleep"].Events[0]
	must.True(t, oneMap(evA.Details, evB.Details))
	must.Eq(t, map[string]string{"message": "Building Task Directory"}, evA.Details)
}

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

// What the allocations of a batch share stays as it was for the others
// when one of them is written again: by the client (task states), by the
// server (desired status, a placement with other resources), or by a
// writer that modifies a copy of it (the scheduler's way).
func TestAllocs_updatingOneLeavesWhatItSharedAlone(t *testing.T) {
	s := newStore(t)
	job := mustUpsertJob(t, s, 5, testJob("example"))
	details := func() map[string]string { return map[string]string{"message": "Building Task Directory"} }
	placed := func() *structs.Allocation {
		a := testAlloc(job, "eval-1", "node-1")
		a.Resources = &structs.Resources{CPU: 100, MemoryMB: 64}
		a.TaskResources = map[string]*structs.Resources{"sleep": {CPU: 100, MemoryMB: 64}}
		a.Metrics = &structs.AllocMetric{NodesAvailable: map[string]int{"dc1": 1}}
		return a
	}
	a, b := placed(), placed()
	must.NoError(t, s.UpsertAllocs(10, []*structs.Allocation{a, b}))
	states := func(message string) map[string]*structs.TaskState {
		return map[string]*structs.TaskState{"sleep": {State: structs.TaskStateRunning, Events: []*structs.TaskEvent{
			{Type: structs.TaskSetup, Message: message, Details: details()},
		}}}
	}
	must.NoError(t, s.UpdateAllocsFromClient(11, []*structs.Allocation{
		{ID: a.ID, ClientStatus: structs.AllocClientStatusRunning, TaskStates: states("Building Task Directory")},
		{ID: b.ID, ClientStatus: structs.AllocClientStatusRunning, TaskStates: states("Building Task Directory")},
	}))
	stored := func(id string) *structs.Allocation {
		t.Helper()
		got, err := s.AllocByID(nil, id)
		must.NoError(t, err)
		return got
	}
	wantB := stored(b.ID).Copy()
	sharedA, sharedB := stored(a.ID), stored(b.ID)
	must.True(t, sharedA.Resources == sharedB.Resources)
	must.True(t, oneMap(sharedA.TaskStates["sleep"].Events[0].Details, sharedB.TaskStates["sleep"].Events[0].Details))

	// A writer modifies a deep copy of what it read, shared parts too.
	c := sharedA.CopySkipJob()
	c.Resources.CPU = 500
	c.TaskResources["sleep"].CPU = 500
	c.Metrics.NodesAvailable["dc1"] = 7
	c.TaskStates["sleep"].Events[0].Details["message"] = "changed"
	must.NoError(t, s.UpsertAllocs(12, []*structs.Allocation{c}))
	must.NoError(t, s.UpdateAllocsFromClient(13, []*structs.Allocation{
		{ID: a.ID, ClientStatus: structs.AllocClientStatusFailed, TaskStates: states("Failed")},
	}))
	must.NoError(t, s.UpdateAllocDesiredStatus(14, []string{a.ID}, structs.AllocDesiredStatusStop, "stopped"))

	gotA := stored(a.ID)
	must.Eq(t, 500, gotA.Resources.CPU)
	must.Eq(t, "Failed", gotA.TaskStates["sleep"].Events[0].Message)
	must.Eq(t, structs.AllocDesiredStatusStop, gotA.DesiredStatus)
	gotB := stored(b.ID)
	must.Eq(t, wantB, gotB)
	must.Eq(t, details(), gotB.TaskStates["sleep"].Events[0].Details)
	must.Eq(t, map[string]int{"dc1": 1}, gotB.Metrics.NodesAvailable)
}

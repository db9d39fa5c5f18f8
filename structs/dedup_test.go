package structs

import (
	"encoding/json"
	"reflect"
	"testing"
	"unsafe"

	"github.com/shoenig/test/must"
)

// sameString reports whether a and b share their bytes.
func sameString(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }

// sameMap reports whether a and b are one map.
func sameMap[M ~map[K]V, K comparable, V any](a, b M) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

func dedupTestAlloc(id string, cpu int, state string) *Allocation {
	return &Allocation{
		ID: id, Namespace: "default", EvalID: "eval-1", Name: "job.g[" + id + "]", NodeID: "node-1",
		JobID: "job", TaskGroup: "g", DesiredStatus: AllocDesiredStatusRun, ClientStatus: state,
		Resources:     &Resources{CPU: cpu, MemoryMB: 10},
		TaskResources: map[string]*Resources{"t": {CPU: cpu, MemoryMB: 10}},
		Metrics: &AllocMetric{
			NodePool: "default", NodesAvailable: map[string]int{"dc1": 3}, ConstraintFiltered: map[string]int{},
			Scores: map[string]float64{"node-1.binpack": float64(cpu)},
		},
		TaskStates: map[string]*TaskState{"t": {State: TaskStateRunning, Events: []*TaskEvent{
			{Type: TaskReceived, DisplayMessage: "Task received by client", Details: map[string]string{}},
			{Type: TaskSetup, Message: "Building Task Directory", Details: map[string]string{"message": "Building Task Directory"}},
		}}},
	}
}

// decoded is a through JSON: a copy of everything, as raft hands it over.
func decoded(t *testing.T, a *Allocation) *Allocation {
	t.Helper()
	data, err := json.Marshal(a)
	must.NoError(t, err)
	var out Allocation
	must.NoError(t, json.Unmarshal(data, &out))
	return &out
}

func TestDedup_equalPartsOfAllocationsShareOneCopy(t *testing.T) {
	a, b := decoded(t, dedupTestAlloc("a", 1, "running")), decoded(t, dedupTestAlloc("b", 1, "running"))
	wantA, wantB := decoded(t, a), decoded(t, b)
	var d Dedup
	d.Allocation(a)
	d.Allocation(b)

	must.Eq(t, wantA, a, must.Sprint("sharing changes no value"))
	must.Eq(t, wantB, b)
	must.True(t, sameString(a.EvalID, b.EvalID))
	must.True(t, sameString(a.NodeID, b.NodeID))
	must.True(t, a.Resources == b.Resources)
	must.True(t, sameMap(a.TaskResources, b.TaskResources))
	must.True(t, sameMap(a.Metrics.NodesAvailable, b.Metrics.NodesAvailable))
	must.False(t, sameMap(a.Metrics.Scores, b.Metrics.Scores), must.Sprint("scores are the placement's own"))
	for k := range a.Metrics.Scores {
		for l := range b.Metrics.Scores {
			must.True(t, sameString(k, l), must.Sprint("score names are shared"))
		}
	}
	evA, evB := a.TaskStates["t"].Events, b.TaskStates["t"].Events
	must.True(t, evA[0] != evB[0], must.Sprint("events are the task's own"))
	must.True(t, sameString(evA[0].DisplayMessage, evB[0].DisplayMessage))
	must.True(t, sameMap(evA[1].Details, evB[1].Details))
	must.True(t, sameMap(evA[0].Details, evB[0].Details))
	must.False(t, sameString(a.ID, b.ID))
}

func TestDedup_differentValuesStayApart(t *testing.T) {
	a, b := decoded(t, dedupTestAlloc("a", 1, "running")), decoded(t, dedupTestAlloc("b", 2, "pending"))
	b.Metrics.NodesAvailable["dc2"] = 1
	b.TaskStates["t"].Events[1].Details["message"] = "other"
	var d Dedup
	d.Allocation(a)
	d.Allocation(b)

	must.Eq(t, 1, a.Resources.CPU)
	must.Eq(t, 2, b.Resources.CPU)
	must.Eq(t, 1, a.TaskResources["t"].CPU)
	must.Eq(t, 2, b.TaskResources["t"].CPU)
	must.Eq(t, map[string]int{"dc1": 3}, a.Metrics.NodesAvailable)
	must.Eq(t, map[string]int{"dc1": 3, "dc2": 1}, b.Metrics.NodesAvailable)
	must.Eq(t, "Building Task Directory", a.TaskStates["t"].Events[1].Details["message"])
	must.Eq(t, "other", b.TaskStates["t"].Events[1].Details["message"])
	must.Eq(t, "running", a.ClientStatus)
	must.Eq(t, "pending", b.ClientStatus)
}

// A map's content key must not let two different maps pass for one.
func TestDedup_mapContentsAreToldApartByKeysAndValues(t *testing.T) {
	var d Dedup
	first := d.detailsOf(map[string]string{"a": "b:c"})
	second := d.detailsOf(map[string]string{"a:b": "c"})
	must.Eq(t, map[string]string{"a": "b:c"}, first)
	must.Eq(t, map[string]string{"a:b": "c"}, second)

	empty := d.detailsOf(map[string]string{})
	must.NotNil(t, empty, must.Sprint("an empty map is not nil"))
	must.Nil(t, d.detailsOf(nil), must.Sprint("nil is not an empty map"))
}

// Strings are shared across batches too: each of a client's updates is a
// batch of its own, and so is each of its pulls.
func TestDedup_stringsSharedAcrossBatches(t *testing.T) {
	decoded := func() *Allocation {
		var a Allocation
		must.NoError(t, json.Unmarshal([]byte(`{"ID":"a1","EvalID":"eval-00000000-0000-4000-8000-000000000001","TaskGroup":"web"}`), &a))
		return &a
	}
	a, b := decoded(), decoded()
	must.False(t, sameString(a.EvalID, b.EvalID))
	var first, second Dedup
	first.Allocation(a)
	second.Allocation(b)
	must.True(t, sameString(a.EvalID, b.EvalID))
	must.True(t, sameString(a.TaskGroup, b.TaskGroup))
}

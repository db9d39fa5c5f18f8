package structs

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/drover-io/drover/api"
	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"
)

// TestJSONShape_matchesWireTypes proves that serving a structs value gives
// the JSON of its api counterpart: the same paths, each the same kind of
// value.
func TestJSONShape_matchesWireTypes(t *testing.T) {
	cases := []struct {
		name          string
		internal, api reflect.Type
		internalOnly  []string // paths Drover serves beyond the wire type
		apiOnly       []string // wire paths Drover does not serve
	}{
		{name: "Job", internal: reflect.TypeFor[Job](), api: reflect.TypeFor[api.Job]()},
		{
			name: "Allocation", internal: reflect.TypeFor[Allocation](), api: reflect.TypeFor[api.Allocation](),
			internalOnly: []string{"RescheduleTracker.Events[].Delay"},
			// MaxRunDeadline is added by Allocation.MarshalJSON; see
			// TestAllocationJSON_carriesMaxRunDeadline.
			apiOnly: []string{"MaxRunDeadline"},
		},
		{
			name: "AllocListStub", internal: reflect.TypeFor[AllocListStub](), api: reflect.TypeFor[api.AllocationListStub](),
			internalOnly: []string{"RescheduleTracker.Events[].Delay"},
		},
		{
			name: "Evaluation", internal: reflect.TypeFor[Evaluation](), api: reflect.TypeFor[api.Evaluation](),
			apiOnly: relatedEvalPaths(),
		},
		{name: "Node", internal: reflect.TypeFor[Node](), api: reflect.TypeFor[api.Node]()},
		{name: "NodeListStub", internal: reflect.TypeFor[NodeListStub](), api: reflect.TypeFor[api.NodeListStub]()},
		{name: "JobListStub", internal: reflect.TypeFor[JobListStub](), api: reflect.TypeFor[api.JobListStub]()},
		{name: "JobSummary", internal: reflect.TypeFor[JobSummary](), api: reflect.TypeFor[api.JobSummary]()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			internal, wire := jsonShape(tc.internal), jsonShape(tc.api)
			for _, p := range tc.internalOnly {
				must.MapContainsKey(t, internal, p)
				delete(internal, p)
			}
			for _, p := range tc.apiOnly {
				must.MapContainsKey(t, wire, p)
				delete(wire, p)
			}
			must.Eq(t, wire, internal)
		})
	}
}

// relatedEvalPaths are the paths of Evaluation.RelatedEvals, which the HTTP
// layer adds to one response.
func relatedEvalPaths() []string {
	var out []string
	for p := range jsonShape(reflect.TypeFor[api.EvaluationStub]()) {
		out = append(out, "RelatedEvals[]."+p)
	}
	return out
}

// maxRunAlloc is an allocation of a batch group with a max_run_duration.
func maxRunAlloc(t *testing.T) *Allocation {
	t.Helper()
	j := validJob("batch")
	group(j).MaxRunDuration = new(10 * time.Second)
	task(j).Config = map[string]any{"command": "/bin/sleep", "args": []any{"1000"}}
	must.NoError(t, j.Validate())
	return &Allocation{
		ID:         GenerateUUID(),
		Name:       AllocName(j.ID, "g", 0),
		Namespace:  j.Namespace,
		JobID:      j.ID,
		Job:        j,
		TaskGroup:  "g",
		CreateTime: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC).UnixNano(),
		TaskStates: map[string]*TaskState{"t": {State: TaskStateRunning}},
	}
}

func TestAllocationJSON_carriesMaxRunDeadline(t *testing.T) {
	alloc := maxRunAlloc(t)
	wantDeadline := time.Date(2025, 1, 2, 3, 4, 15, 0, time.UTC).UnixNano()

	for _, tc := range []struct {
		name  string
		value any
	}{
		{"pointer", alloc},
		{"value", *alloc},
		{"in a slice", []*Allocation{alloc}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.value)
			must.NoError(t, err)
			if _, ok := tc.value.([]*Allocation); ok {
				var out []api.Allocation
				must.NoError(t, json.Unmarshal(b, &out))
				must.Eq(t, wantDeadline, out[0].MaxRunDeadline)
				return
			}

			var ours api.Allocation
			must.NoError(t, json.Unmarshal(b, &ours))
			must.Eq(t, wantDeadline, ours.MaxRunDeadline)
			must.Eq(t, alloc.ID, ours.ID)
			must.Eq(t, alloc.CreateTime, ours.CreateTime)
			must.Eq(t, 10*time.Second, *ours.Job.TaskGroups[0].MaxRunDuration)

			var nomads nomadapi.Allocation
			must.NoError(t, json.Unmarshal(b, &nomads))
			must.Eq(t, alloc.ID, nomads.ID)
			must.Eq(t, alloc.Name, nomads.Name)
			must.Eq(t, "running", nomads.TaskStates["t"].State)
			must.Eq(t, "batch", *nomads.Job.Type)

			var back Allocation
			must.NoError(t, json.Unmarshal(b, &back))
			must.Eq(t, alloc, &back)
		})
	}
}

func TestAllocationJSON_omitsDeadlineWithoutMaxRunDuration(t *testing.T) {
	alloc := maxRunAlloc(t)
	group(alloc.Job).MaxRunDuration = nil
	b, err := json.Marshal(alloc)
	must.NoError(t, err)
	must.StrNotContains(t, string(b), "MaxRunDeadline")

	alloc = maxRunAlloc(t)
	alloc.CreateTime = 0 // not yet placed
	b, err = json.Marshal(alloc)
	must.NoError(t, err)
	must.StrNotContains(t, string(b), "MaxRunDeadline")
}

func TestAllocListStub(t *testing.T) {
	alloc := maxRunAlloc(t)
	alloc.Job.Version = 4
	stub := alloc.Stub()
	must.Eq(t, "batch", stub.JobType)
	must.Eq(t, 4, stub.JobVersion)
	must.Eq(t, alloc.CreateTime+int64(10*time.Second), stub.MaxRunDeadline)

	b, err := json.Marshal(stub)
	must.NoError(t, err)
	var ours api.AllocationListStub
	must.NoError(t, json.Unmarshal(b, &ours))
	must.Eq(t, stub.MaxRunDeadline, ours.MaxRunDeadline)
	must.Eq(t, alloc.ID, ours.ID)
	var nomads nomadapi.AllocationListStub
	must.NoError(t, json.Unmarshal(b, &nomads))
	must.Eq(t, alloc.ID, nomads.ID)
	must.Eq(t, "batch", nomads.JobType)

	alloc.Job = nil
	must.Eq(t, "", alloc.Stub().JobType)
	must.Eq(t, 0, alloc.Stub().MaxRunDeadline)
}

// TestJobJSON_decodesIntoNomadAPI proves the official client reads the jobs
// Drover serves.
func TestJobJSON_decodesIntoNomadAPI(t *testing.T) {
	j := maxRunAlloc(t).Job
	task(j).Lifecycle = &TaskLifecycle{Hook: "prestart", Sidecar: true}
	addTask(j, "main").Lifecycle = nil

	b, err := json.Marshal(j)
	must.NoError(t, err)
	var nj nomadapi.Job
	must.NoError(t, json.Unmarshal(b, &nj))

	must.Eq(t, j.ID, *nj.ID)
	must.Eq(t, j.Type, *nj.Type)
	must.Eq(t, j.Priority, *nj.Priority)
	must.SliceLen(t, len(j.TaskGroups), nj.TaskGroups)
	ntg := nj.TaskGroups[0]
	must.Eq(t, group(j).Name, *ntg.Name)
	must.Eq(t, group(j).Count, *ntg.Count)
	must.Eq(t, *group(j).MaxRunDuration, *ntg.MaxRunDuration)
	must.Eq(t, group(j).RestartPolicy.Attempts, *ntg.RestartPolicy.Attempts)
	must.SliceLen(t, 2, ntg.Tasks)
	must.Eq(t, task(j).Driver, ntg.Tasks[0].Driver)
	must.Eq(t, task(j).Config, ntg.Tasks[0].Config)
	must.Eq(t, "prestart", ntg.Tasks[0].Lifecycle.Hook)
	must.True(t, ntg.Tasks[0].Lifecycle.Sidecar)
	must.Nil(t, ntg.Tasks[1].Lifecycle)
	must.Eq(t, task(j).KillTimeout, *ntg.Tasks[0].KillTimeout)
	must.Eq(t, task(j).Resources.MemoryMB, *ntg.Tasks[0].Resources.MemoryMB)
}

func TestJobStub(t *testing.T) {
	j := validJob("batch")
	j.Periodic = &PeriodicConfig{Enabled: true, Spec: "@daily", SpecType: "cron", TimeZone: "UTC"}
	j.Meta = map[string]string{"owner": "ops"}
	j.Status = JobStatusRunning
	summary := &JobSummary{JobID: j.ID, Namespace: j.Namespace, Summary: map[string]TaskGroupSummary{"g": {Running: 1}}}

	stub := j.Stub(summary)
	must.Eq(t, j.ID, stub.ID)
	must.True(t, stub.Periodic)
	must.Eq(t, JobStatusRunning, stub.Status)
	must.EqOp(t, summary, stub.JobSummary)
	j.Meta["owner"] = "changed"
	j.Datacenters[0] = "changed"
	must.Eq(t, "ops", stub.Meta["owner"], must.Sprint("the stub holds copies"))
	must.Eq(t, "*", stub.Datacenters[0])

	b, err := json.Marshal(stub)
	must.NoError(t, err)
	var nomads nomadapi.JobListStub
	must.NoError(t, json.Unmarshal(b, &nomads))
	must.Eq(t, j.ID, nomads.ID)
	must.Eq(t, 1, nomads.JobSummary.Summary["g"].Running)
}

func TestNodeStub(t *testing.T) {
	n := &Node{
		ID:                    GenerateUUID(),
		Name:                  "laptop",
		Datacenter:            "dc1",
		HTTPAddr:              "192.168.1.7:4646",
		NodePool:              "default",
		Status:                NodeStatusReady,
		SchedulingEligibility: NodeSchedulingEligible,
		Attributes:            map[string]string{"nomad.version": "0.1.0", "os.name": "debian", "kernel.name": "linux"},
		NodeResources:         &NodeResources{Cpu: NodeCpuResources{CpuShares: 4000}},
		Drivers:               map[string]*DriverInfo{"raw_exec": {Detected: true, Healthy: true}},
	}
	cases := []struct {
		name           string
		fields         NodeStubFields
		wantAttributes map[string]string
		wantResources  bool
	}{
		{name: "plain"},
		{name: "resources", fields: NodeStubFields{Resources: true}, wantResources: true},
		{name: "os", fields: NodeStubFields{OS: true}, wantAttributes: map[string]string{"os.name": "debian"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stub := n.StubWith(tc.fields)
			must.Eq(t, "192.168.1.7", stub.Address)
			must.Eq(t, "0.1.0", stub.Version)
			must.Eq(t, tc.wantAttributes, stub.Attributes)
			must.Eq(t, tc.wantResources, stub.NodeResources != nil)
			must.Eq(t, slices.Sorted(maps.Keys(n.Drivers)), slices.Sorted(maps.Keys(stub.Drivers)))

			b, err := json.Marshal(stub)
			must.NoError(t, err)
			var nomads nomadapi.NodeListStub
			must.NoError(t, json.Unmarshal(b, &nomads))
			must.Eq(t, n.ID, nomads.ID)
			must.Eq(t, "192.168.1.7", nomads.Address)
			must.True(t, nomads.Drivers["raw_exec"].Healthy)
		})
	}
	must.Eq(t, n.Stub(), n.StubWith(NodeStubFields{}))

	for addr, want := range map[string]string{"[::1]:4646": "::1", "node1": "node1", "": ""} {
		must.Eq(t, want, (&Node{HTTPAddr: addr}).Stub().Address, must.Sprint(addr))
	}
}

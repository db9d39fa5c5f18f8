package convert

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"
	"time"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/internal/filltest"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/structs"
)

// Until the HTTP layer converted them, the model's own JSON was what the
// API served. These tests hold the conversions to that: every field of a
// filled model value reaches the wire under the same name with the same
// value, so that no response changed when the model stopped being served.

// mustEncodeAlike fails unless model and wire encode to the same JSON but
// for the top-level keys wireOnly, which the wire form adds.
func mustEncodeAlike(t *testing.T, model, wire any, wireOnly ...string) {
	t.Helper()
	m, w := jsonObject(t, model), jsonObject(t, wire)
	for _, k := range wireOnly {
		must.MapContainsKey(t, w, k)
		delete(w, k)
	}
	must.Eq(t, m, w)
}

// mustEncodeNodeAlike is mustEncodeAlike for a node, whose secret ID the
// wire form must leave empty: it proves the node to the servers and leaves
// them never (the field is there, empty, as in Nomad's answer).
func mustEncodeNodeAlike(t *testing.T, model *structs.Node, wire *api.Node) {
	t.Helper()
	m, w := jsonObject(t, model), jsonObject(t, wire)
	must.MapContainsKey(t, m, "SecretID")
	must.NotEq(t, any(""), m["SecretID"])
	must.Eq(t, any(""), w["SecretID"])
	delete(m, "SecretID")
	delete(w, "SecretID")
	must.Eq(t, m, w)
}

// jsonObject is v encoded as JSON and decoded as a generic object.
func jsonObject(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	must.NoError(t, err)
	var out map[string]any
	must.NoError(t, json.Unmarshal(b, &out))
	return out
}

// withoutNetworks is a without its assigned networks, which the wire
// shows in AllocatedResources.Shared, as Nomad does.
func withoutNetworks(a *structs.Allocation) *structs.Allocation {
	c := a.Copy()
	c.Networks = nil
	return c
}

// withoutTaskNetworks clears j's tasks' own networks, which the wire shows
// in Resources.Networks, as Nomad's, and the model's encoding leaves out:
// no registered job has one (structs moves them into the group's).
func withoutTaskNetworks(j *structs.Job) *structs.Job {
	for _, tg := range j.TaskGroups {
		for _, task := range tg.Tasks {
			task.Networks = nil
		}
	}
	return j
}

func TestToAPI_encodesAsTheModel(t *testing.T) {
	t.Run("Job", func(t *testing.T) {
		j := withoutTaskNetworks(filltest.New[structs.Job]())
		mustEncodeAlike(t, j, JobToAPI(j))
	})
	t.Run("Allocation", func(t *testing.T) {
		// A filled allocation names a group its job does not have, so it
		// has no deadline; the wire adds Nomad's view of its resources.
		a := filltest.New[structs.Allocation]()
		withoutTaskNetworks(a.Job)
		mustEncodeAlike(t, withoutNetworks(a), AllocToAPI(a), "AllocatedResources")
	})
	t.Run("Evaluation", func(t *testing.T) {
		e := filltest.New[structs.Evaluation]()
		mustEncodeAlike(t, e, EvalToAPI(e), "RelatedEvals")
	})
	t.Run("Node", func(t *testing.T) {
		n := filltest.New[structs.Node]()
		mustEncodeNodeAlike(t, n, NodeToAPI(n))
	})
	t.Run("JobSummary", func(t *testing.T) {
		s := filltest.New[structs.JobSummary]()
		mustEncodeAlike(t, s, JobSummaryToAPI(s))
	})
	t.Run("JobDiff", func(t *testing.T) {
		d := filltest.New[structs.JobDiff]()
		mustEncodeAlike(t, d, jobDiffToAPI(d))
	})
}

func TestToAPI_sharesNoMemory(t *testing.T) {
	// Changing the input after the conversion must leave the result as
	// it was: the encoding of a value filled alike.
	a := filltest.New[structs.Allocation]()
	withoutTaskNetworks(a.Job)
	out := AllocToAPI(a)
	for k := range a.TaskStates {
		a.TaskStates[k].Events[0].Details["changed"] = "yes"
		a.TaskStates[k].Events[0] = nil
	}
	a.Job.TaskGroups[0].Meta["changed"] = "yes"
	a.Metrics.Scores["changed"] = 1
	a.RescheduleTracker.Events[0].PrevAllocID = "changed"
	want := filltest.New[structs.Allocation]()
	withoutTaskNetworks(want.Job)
	mustEncodeAlike(t, withoutNetworks(want), out, "AllocatedResources")

	n := filltest.New[structs.Node]()
	nodeOut := NodeToAPI(n)
	for _, d := range n.Drivers {
		d.Attributes["changed"] = "yes"
	}
	n.Events[0].Details["changed"] = "yes"
	mustEncodeNodeAlike(t, filltest.New[structs.Node](), nodeOut)
}

func TestToAPI_nil(t *testing.T) {
	must.Nil(t, AllocToAPI(nil))
	must.Nil(t, EvalToAPI(nil))
	must.Nil(t, NodeToAPI(nil))
	must.Nil(t, JobSummaryToAPI(nil))
	must.Nil(t, jobDiffToAPI(nil))
	must.SliceEmpty(t, AllocStubs(nil))
	must.NotNil(t, AllocStubs(nil), must.Sprint("an empty list encodes as []"))
	must.NotNil(t, EvalsToAPI(nil))
	must.Nil(t, JobDiffsToAPI(nil), must.Sprint("no diffs asked encodes as null"))
}

// maxRunJob is a valid batch job "maxrun" whose group "g" has a
// max_run_duration of 10s, with a prestart sidecar "maxrun" and a main task.
func maxRunJob(t *testing.T) *structs.Job {
	t.Helper()
	wire := api.Job{
		ID:          new("maxrun"),
		Name:        new("maxrun"),
		Type:        new("batch"),
		Datacenters: []string{"dc1"},
		TaskGroups: []*api.TaskGroup{{
			Name:           new("g"),
			Count:          new(1),
			MaxRunDuration: new(10 * time.Second),
			Tasks: []*api.Task{{
				Name:      "maxrun",
				Driver:    "raw_exec",
				Config:    map[string]any{"command": "/bin/sleep", "args": []any{"1000"}},
				Lifecycle: &api.TaskLifecycle{Hook: "prestart", Sidecar: true},
			}},
		}},
	}
	main := *wire.TaskGroups[0].Tasks[0]
	main.Name, main.Lifecycle = "main", nil
	wire.TaskGroups[0].Tasks = append(wire.TaskGroups[0].Tasks, &main)
	job := JobFromAPI(&wire)
	job.Canonicalize()
	must.NoError(t, job.Validate())
	return job
}

// maxRunAlloc is an allocation of maxRunJob's group, created at a fixed
// time.
func maxRunAlloc(t *testing.T) *structs.Allocation {
	t.Helper()
	j := maxRunJob(t)
	return &structs.Allocation{
		ID:         structs.GenerateUUID(),
		Name:       structs.AllocName(j.ID, "g", 0),
		Namespace:  j.Namespace,
		JobID:      j.ID,
		Job:        j,
		TaskGroup:  "g",
		CreateTime: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC).UnixNano(),
		TaskStates: map[string]*structs.TaskState{"t": {State: structs.TaskStateRunning}},
	}
}

func TestAllocToAPI_carriesMaxRunDeadline(t *testing.T) {
	alloc := maxRunAlloc(t)
	wantDeadline := time.Date(2025, 1, 2, 3, 4, 15, 0, time.UTC).UnixNano()

	wire := AllocToAPI(alloc)
	must.Eq(t, wantDeadline, wire.MaxRunDeadline)
	must.Eq(t, 10*time.Second, wire.MaxRunDuration)
	must.False(t, wire.MaxRunExceeded)
	b, err := json.Marshal(wire)
	must.NoError(t, err)

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

	must.Eq(t, []*api.Allocation{wire}, AllocsToAPI([]*structs.Allocation{alloc}))

	stub := allocStub(alloc)
	must.Eq(t, wantDeadline, stub.MaxRunDeadline)
	must.Eq(t, 10*time.Second, stub.MaxRunDuration)
	must.False(t, stub.MaxRunExceeded)

	alloc.ClientStatus, alloc.ClientDescription = structs.AllocClientStatusComplete, structs.AllocTimeoutReasonMaxRunDuration
	must.True(t, AllocToAPI(alloc).MaxRunExceeded)
	must.True(t, allocStub(alloc).MaxRunExceeded, must.Sprint("lists tell a timeout too"))
}

func TestAllocToAPI_omitsDeadlineWithoutMaxRunDuration(t *testing.T) {
	alloc := maxRunAlloc(t)
	alloc.Job.TaskGroups[0].MaxRunDuration = nil
	must.MapNotContainsKey(t, jsonObject(t, AllocToAPI(alloc)), "MaxRunDeadline")
	must.MapNotContainsKey(t, jsonObject(t, allocStub(alloc)), "MaxRunDeadline")

	must.MapNotContainsKey(t, jsonObject(t, AllocToAPI(alloc)), "MaxRunDuration")
	must.MapNotContainsKey(t, jsonObject(t, AllocToAPI(alloc)), "MaxRunExceeded")

	alloc = maxRunAlloc(t)
	alloc.CreateTime = 0 // not yet placed
	must.MapNotContainsKey(t, jsonObject(t, AllocToAPI(alloc)), "MaxRunDeadline")
	must.MapNotContainsKey(t, jsonObject(t, allocStub(alloc)), "MaxRunDeadline")
}

// TestModelJSON_hasNoMaxRunDeadline: the model's own encoding is what raft
// entries, snapshots and the client's state hold; the deadline is derived,
// so it is not in there.
func TestModelJSON_hasNoMaxRunDeadline(t *testing.T) {
	alloc := maxRunAlloc(t)
	_, ok := alloc.MaxRunDeadline()
	must.True(t, ok)
	for _, v := range []any{alloc, *alloc, []*structs.Allocation{alloc}} {
		b, err := json.Marshal(v)
		must.NoError(t, err)
		must.StrNotContains(t, string(b), "MaxRunDeadline")
	}
}

func TestAllocStub(t *testing.T) {
	alloc := maxRunAlloc(t)
	alloc.Job.Version = 4
	stub := allocStub(alloc)
	must.Eq(t, "batch", stub.JobType)
	must.Eq(t, 4, stub.JobVersion)
	must.Eq(t, alloc.CreateTime+int64(10*time.Second), stub.MaxRunDeadline)
	must.Eq(t, "running", stub.TaskStates["t"].State)

	b, err := json.Marshal(stub)
	must.NoError(t, err)
	var nomads nomadapi.AllocationListStub
	must.NoError(t, json.Unmarshal(b, &nomads))
	must.Eq(t, alloc.ID, nomads.ID)
	must.Eq(t, "batch", nomads.JobType)

	alloc.Job = nil
	must.Eq(t, "", allocStub(alloc).JobType)
	must.Eq(t, 0, allocStub(alloc).MaxRunDeadline)
}

// TestAllocStub_fieldsOfTheAllocation: a stub's fields that the allocation
// also has carry the allocation's values.
func TestAllocStub_fieldsOfTheAllocation(t *testing.T) {
	a := filltest.New[structs.Allocation]()
	full, stub := jsonObject(t, AllocToAPI(a)), jsonObject(t, allocStub(a))
	delete(stub, "JobType")
	delete(stub, "JobVersion")
	for k, v := range stub {
		must.Eq(t, full[k], v, must.Sprint(k))
	}
	must.Eq(t, a.Job.Type, allocStub(a).JobType)
}

// TestJobToAPI_decodesIntoNomadAPI proves the official client reads the
// jobs Drover serves.
func TestJobToAPI_decodesIntoNomadAPI(t *testing.T) {
	j := maxRunJob(t)

	b, err := json.Marshal(JobToAPI(j))
	must.NoError(t, err)
	var nj nomadapi.Job
	must.NoError(t, json.Unmarshal(b, &nj))

	tg, task := j.TaskGroups[0], j.TaskGroups[0].Tasks[0]
	must.Eq(t, j.ID, *nj.ID)
	must.Eq(t, j.Type, *nj.Type)
	must.Eq(t, j.Priority, *nj.Priority)
	must.SliceLen(t, len(j.TaskGroups), nj.TaskGroups)
	ntg := nj.TaskGroups[0]
	must.Eq(t, tg.Name, *ntg.Name)
	must.Eq(t, tg.Count, *ntg.Count)
	must.Eq(t, *tg.MaxRunDuration, *ntg.MaxRunDuration)
	must.Eq(t, tg.RestartPolicy.Attempts, *ntg.RestartPolicy.Attempts)
	must.SliceLen(t, 2, ntg.Tasks)
	must.Eq(t, task.Driver, ntg.Tasks[0].Driver)
	must.Eq(t, jsonObject(t, map[string]any{"c": task.Config}), jsonObject(t, map[string]any{"c": ntg.Tasks[0].Config}))
	must.Eq(t, "prestart", ntg.Tasks[0].Lifecycle.Hook)
	must.True(t, ntg.Tasks[0].Lifecycle.Sidecar)
	must.Nil(t, ntg.Tasks[1].Lifecycle)
	must.Eq(t, task.KillTimeout, *ntg.Tasks[0].KillTimeout)
	must.Eq(t, task.Resources.MemoryMB, *ntg.Tasks[0].Resources.MemoryMB)
}

func TestJobStub(t *testing.T) {
	j := maxRunJob(t)
	j.Periodic = &structs.PeriodicConfig{Enabled: true, Spec: "@daily", SpecType: "cron", TimeZone: "UTC"}
	j.Meta = map[string]string{"owner": "ops"}
	j.Status = structs.JobStatusRunning
	summary := &structs.JobSummary{JobID: j.ID, Namespace: j.Namespace, Summary: map[string]structs.TaskGroupSummary{"g": {Running: 1}}}

	stub := JobStub(j, summary)
	must.Eq(t, j.ID, stub.ID)
	must.True(t, stub.Periodic)
	must.Eq(t, structs.JobStatusRunning, stub.Status)
	must.Eq(t, JobSummaryToAPI(summary), stub.JobSummary)
	j.Meta["owner"] = "changed"
	j.Datacenters[0] = "changed"
	summary.Summary["g"] = structs.TaskGroupSummary{}
	must.Eq(t, "ops", stub.Meta["owner"], must.Sprint("the stub holds copies"))
	must.Eq(t, "dc1", stub.Datacenters[0])
	must.Eq(t, 1, stub.JobSummary.Summary["g"].Running)

	b, err := json.Marshal(stub)
	must.NoError(t, err)
	var nomads nomadapi.JobListStub
	must.NoError(t, json.Unmarshal(b, &nomads))
	must.Eq(t, j.ID, nomads.ID)
	must.Eq(t, 1, nomads.JobSummary.Summary["g"].Running)

	must.Nil(t, JobStub(j, nil).JobSummary)
}

func TestNodeStub(t *testing.T) {
	n := &structs.Node{
		ID:                    structs.GenerateUUID(),
		Name:                  "laptop",
		Datacenter:            "dc1",
		HTTPAddr:              "192.168.1.7:4646",
		NodePool:              "default",
		Status:                structs.NodeStatusReady,
		SchedulingEligibility: structs.NodeSchedulingEligible,
		Attributes:            map[string]string{"nomad.version": "0.1.0", "os.name": "debian", "kernel.name": "linux"},
		NodeResources:         &structs.NodeResources{Cpu: structs.NodeCpuResources{CpuShares: 4000}},
		Drivers:               map[string]*structs.DriverInfo{"raw_exec": {Detected: true, Healthy: true}},
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
			stub := NodeStub(n, tc.fields)
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

	for addr, want := range map[string]string{"[::1]:4646": "::1", "node1": "node1", "": ""} {
		must.Eq(t, want, NodeStub(&structs.Node{HTTPAddr: addr}, NodeStubFields{}).Address, must.Sprint(addr))
	}
}

// TestJobDiffToAPI_decodesIntoNomadAPI: the diff is served as JSON that
// Drover's and Nomad's clients decode.
func TestJobDiffToAPI_decodesIntoNomadAPI(t *testing.T) {
	old := maxRunJob(t)
	next := old.Copy()
	next.TaskGroups[0].MaxRunDuration = new(30 * time.Second)
	d, err := old.Diff(next, true)
	must.NoError(t, err)

	b, err := json.Marshal(jobDiffToAPI(d))
	must.NoError(t, err)
	var decoded nomadapi.JobDiff
	must.NoError(t, json.Unmarshal(b, &decoded))
	must.Eq(t, "MaxRunDuration", decoded.TaskGroups[0].Fields[0].Name)
	must.Eq(t, "30000000000", decoded.TaskGroups[0].Fields[0].New)
}

// TestPlanResponseToAPI: a dry run's outcome reaches the wire in the shape
// of Nomad's JobPlanResponse, with the index the dry run read.
func TestPlanResponseToAPI(t *testing.T) {
	resp := filltest.New[nomad.JobPlanResponse]()
	wire := PlanResponseToAPI(resp, "a warning")

	got := jsonObject(t, wire)
	must.Eq[any](t, float64(resp.Index), got["Index"])
	must.Eq[any](t, "a warning", got["Warnings"])
	must.Eq(t, jsonObject(t, map[string]any{"d": resp.Diff}), jsonObject(t, map[string]any{"d": got["Diff"]}))
	annotations := got["Annotations"].(map[string]any)
	must.Nil(t, annotations["PreemptedAllocs"], must.Sprint("Drover does not preempt"))
	must.Eq(t, jsonObject(t, resp.DesiredTGUpdates), annotations["DesiredTGUpdates"].(map[string]any))

	b, err := json.Marshal(wire)
	must.NoError(t, err)
	var nomads nomadapi.JobPlanResponse
	must.NoError(t, json.Unmarshal(b, &nomads))
	must.Eq(t, resp.JobModifyIndex, nomads.JobModifyIndex)
	must.SliceLen(t, len(resp.CreatedEvals), nomads.CreatedEvals)
	must.Eq(t, resp.CreatedEvals[0].ID, nomads.CreatedEvals[0].ID)
	must.MapLen(t, len(resp.FailedTGAllocs), nomads.FailedTGAllocs)
	must.Eq(t, resp.NextPeriodicLaunch, nomads.NextPeriodicLaunch)
	for name, u := range resp.DesiredTGUpdates {
		must.Eq(t, u.InPlaceUpdate, nomads.Annotations.DesiredTGUpdates[name].InPlaceUpdate)
	}
}

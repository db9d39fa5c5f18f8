package agent

import (
	"testing"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

// TestAllocatedResources_OfficialClient: Nomad's client reads what an
// allocation holds as AllocatedResources: each task's CPU and memory and
// the group's ephemeral_disk as the shared disk; the list
// carries them only when asked (?resources=true), as Nomad's does.
func TestAllocatedResources_OfficialClient(t *testing.T) {
	a := testAgent(t)
	upsertNode(t, a, structs.GenerateUUID(), "node")
	client, err := nomadapi.NewClient(&nomadapi.Config{Address: "http://" + a.HTTPAddr()})
	must.NoError(t, err)

	job := nomadapi.NewBatchJob("held", "held", "global", 50)
	job.Datacenters = []string{"dc1"}
	main := nomadapi.NewTask("main", "raw_exec").SetConfig("command", "/bin/true").
		Require(&nomadapi.Resources{CPU: new(300), MemoryMB: new(200), MemoryMaxMB: new(400)})
	prep := nomadapi.NewTask("prep", "raw_exec").SetConfig("command", "/bin/true").
		Require(&nomadapi.Resources{CPU: new(100), MemoryMB: new(50)})
	prep.Lifecycle = &nomadapi.TaskLifecycle{Hook: "prestart"}
	group := nomadapi.NewTaskGroup("g", 1).AddTask(main).AddTask(prep)
	group.EphemeralDisk = &nomadapi.EphemeralDisk{SizeMB: new(150)}
	_, _, err = client.Jobs().Register(job.AddTaskGroup(group), nil)
	must.NoError(t, err)
	stubs := waitJobAllocs(t, a, "held", "an allocation", func(s []*api.AllocationListStub) bool { return len(s) == 1 })

	alloc, _, err := client.Allocations().Info(stubs[0].ID, nil)
	must.NoError(t, err)
	ar := alloc.AllocatedResources
	must.NotNil(t, ar)
	must.Eq(t, 300, ar.Tasks["main"].Cpu.CpuShares)
	must.Eq(t, 200, ar.Tasks["main"].Memory.MemoryMB)
	must.Eq(t, 400, ar.Tasks["main"].Memory.MemoryMaxMB)
	must.Eq(t, 100, ar.Tasks["prep"].Cpu.CpuShares)
	must.Eq(t, 150, ar.Shared.DiskMB)

	listed, _, err := client.Allocations().List(&nomadapi.QueryOptions{Params: map[string]string{"resources": "true"}})
	must.NoError(t, err)
	must.SliceLen(t, 1, listed)
	must.NotNil(t, listed[0].AllocatedResources)
	must.Eq(t, 150, listed[0].AllocatedResources.Shared.DiskMB)

	listed, _, err = client.Allocations().List(nil)
	must.NoError(t, err)
	must.Nil(t, listed[0].AllocatedResources)

	resp := do(t, a, "GET", "/v1/allocations?resources=perhaps", nil)
	must.Eq(t, 400, resp.code)
	must.StrContains(t, resp.String(), `invalid resources "perhaps"`)
}

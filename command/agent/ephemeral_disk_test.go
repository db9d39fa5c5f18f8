package agent

import (
	"testing"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

// TestEphemeralDisk_OverTheAPI: Nomad's client registers a group's
// ephemeral_disk; its size is stored, read back and reserved for the
// allocation, while sticky and migrate, which Drover does not implement,
// are refused when they ask for anything (false asks for nothing).
func TestEphemeralDisk_OverTheAPI(t *testing.T) {
	a := testAgent(t)
	upsertNode(t, a, structs.GenerateUUID(), "node") // 100,000 MB of disk
	client, err := nomadapi.NewClient(&nomadapi.Config{Address: "http://" + a.HTTPAddr()})
	must.NoError(t, err)

	job := func(id string, disk *nomadapi.EphemeralDisk) *nomadapi.Job {
		j := nomadapi.NewBatchJob(id, id, "global", 50)
		j.Datacenters = []string{"dc1"}
		g := nomadapi.NewTaskGroup("g", 1).AddTask(nomadapi.NewTask("t", "raw_exec").SetConfig("command", "/bin/sleep").SetConfig("args", []string{"1000"}))
		g.EphemeralDisk = disk
		return j.AddTaskGroup(g)
	}

	reg, _, err := client.Jobs().Register(job("sized", &nomadapi.EphemeralDisk{SizeMB: new(25)}), nil)
	must.NoError(t, err)
	must.Eq(t, "", reg.Warnings)
	info, _, err := client.Jobs().Info("sized", nil)
	must.NoError(t, err)
	must.Eq(t, 25, *info.TaskGroups[0].EphemeralDisk.SizeMB)

	allocs := waitJobAllocs(t, a, "sized", "an allocation", func(s []*api.AllocationListStub) bool { return len(s) > 0 })
	var alloc struct{ Resources struct{ DiskMB int } }
	get(t, a, "/v1/allocation/"+allocs[0].ID, &alloc)
	must.GreaterEq(t, 25, alloc.Resources.DiskMB)

	// What Nomad's CLI sends: its defaults, 300 MB and neither sticky
	// nor migrate, which ask for nothing.
	canonical := job("canonical", nil)
	canonical.Canonicalize()
	reg, _, err = client.Jobs().Register(canonical, nil)
	must.NoError(t, err)
	must.Eq(t, "", reg.Warnings)
	info, _, err = client.Jobs().Info("canonical", nil)
	must.NoError(t, err)
	must.Eq(t, 300, *info.TaskGroups[0].EphemeralDisk.SizeMB)

	_, _, err = client.Jobs().Register(job("sticky", &nomadapi.EphemeralDisk{SizeMB: new(25), Sticky: new(true)}), nil)
	must.ErrorContains(t, err, `Job field "TaskGroups[0].EphemeralDisk.Sticky" is not supported by Drover`)
	_, _, err = client.Jobs().Register(job("migrate", &nomadapi.EphemeralDisk{Migrate: new(true)}), nil)
	must.ErrorContains(t, err, `Job field "TaskGroups[0].EphemeralDisk.Migrate" is not supported by Drover`)
	_, _, err = client.Jobs().Register(job("tiny", &nomadapi.EphemeralDisk{SizeMB: new(5)}), nil)
	must.ErrorContains(t, err, "ephemeral_disk size must be between 10 and 1073741824 MB, got 5")
}

package scheduler

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// TestEphemeralDisk_IsReservedOnTheNode: a group's ephemeral_disk counts
// against the node's disk with its tasks' resources, so a node with room
// for two allocations' disks gets two and the third is blocked on disk.
func TestEphemeralDisk_IsReservedOnTheNode(t *testing.T) {
	h := newHarness(t)
	h.addNodes(1, nil) // 100,000 MB of disk
	job := mockJob(structs.JobTypeBatch, 3)
	job.TaskGroups[0].Tasks[0].Resources.DiskMB = 1_000
	job.TaskGroups[0].EphemeralDisk = &structs.EphemeralDisk{SizeMB: 39_000}
	job = h.runJob(job)

	allocs := h.allocs(job)
	must.SliceLen(t, 2, allocs)
	for _, a := range allocs {
		must.Eq(t, 40_000, a.Resources.DiskMB, must.Sprint("the group's disk and its task's"))
		must.Eq(t, 1_000, a.TaskResources["t"].DiskMB, must.Sprint("a task's share is its own resources"))
	}
	eval := h.lastUpdate()
	metric := eval.FailedTGAllocs["g"]
	must.NotNil(t, metric)
	must.Eq(t, map[string]int{dimensionDisk: 1}, metric.DimensionExhausted)
}

// TestEphemeralDisk_NoneReservesNothing: without the block a group asks
// only for its tasks' resources.
func TestEphemeralDisk_NoneReservesNothing(t *testing.T) {
	tg := mockJob(structs.JobTypeBatch, 1).TaskGroups[0]
	total, _ := groupAsk(tg)
	must.Eq(t, 0, total.DiskMB)
	tg.EphemeralDisk = &structs.EphemeralDisk{SizeMB: 300}
	total, _ = groupAsk(tg)
	must.Eq(t, 300, total.DiskMB)
}

// TestEphemeralDisk_ResizeReplacesTheAllocation: a new size is a new
// reservation, which an allocation updated in place would not hold.
func TestEphemeralDisk_ResizeReplacesTheAllocation(t *testing.T) {
	base := mockJob(structs.JobTypeBatch, 1).TaskGroups[0]
	base.EphemeralDisk = &structs.EphemeralDisk{SizeMB: 300}
	same := base.Copy()
	must.False(t, needsNewAlloc(base, same))
	bigger := base.Copy()
	bigger.EphemeralDisk.SizeMB = 500
	must.True(t, needsNewAlloc(base, bigger))
	must.Eq(t, 300, base.EphemeralDisk.SizeMB, must.Sprint("Copy shares no disk with the original"))
}

package nomad

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/nomad/drainer"
	"github.com/drover-io/drover/structs"
)

// nodeByID returns the stored node.
func nodeByID(t *testing.T, s *Server, id string) *structs.Node {
	t.Helper()
	n, err := s.State().NodeByID(nil, id)
	must.NoError(t, err)
	return n
}

func TestDrain_MigratesServiceAndLetsBatchFinish(t *testing.T) {
	s := startServer(t, testConfig(t, "dev"))
	waitForLeader(t, s)
	ctx := testCtx(t)
	drained := registerNodes(t, s, 1)[0]

	service := testJob("web")
	service.Type = structs.JobTypeService
	service.TaskGroups[0].ReschedulePolicy = nil
	service.Canonicalize()
	mustRegister(t, s, service)
	mustRegister(t, s, testJob("report"))
	waitfor.True(t, "both jobs placed", func() bool {
		return len(liveAllocs(t, s, "web")) == 1 && len(liveAllocs(t, s, "report")) == 1
	})
	webAlloc, batchAlloc := liveAllocs(t, s, "web")[0], liveAllocs(t, s, "report")[0]
	other := fakeNode("other")
	_, err := s.NodeRegister(ctx, other)
	must.NoError(t, err)

	_, err = s.NodeUpdateDrain(ctx, drained.ID, &structs.DrainStrategy{Deadline: time.Hour}, false)
	must.NoError(t, err)
	waitfor.True(t, "the service allocation to move", func() bool {
		live := liveAllocs(t, s, "web")
		return len(live) == 1 && live[0].NodeID == other.ID
	})
	moved := liveAllocs(t, s, "web")[0]
	must.Eq(t, webAlloc.ID, moved.PreviousAllocation)
	old, err := s.State().AllocByID(nil, webAlloc.ID)
	must.NoError(t, err)
	must.True(t, old.DesiredTransition.Migrate != nil && *old.DesiredTransition.Migrate)
	must.Eq(t, structs.AllocDesiredStatusStop, old.DesiredStatus)

	// The batch allocation keeps running, and the drain waits for it.
	batch, err := s.State().AllocByID(nil, batchAlloc.ID)
	must.NoError(t, err)
	must.Eq(t, structs.AllocDesiredStatusRun, batch.DesiredStatus)
	must.True(t, nodeByID(t, s, drained.ID).Drain)

	_, err = s.UpdateAllocsFromClient(ctx, []*structs.Allocation{{ID: batchAlloc.ID, ClientStatus: structs.AllocClientStatusComplete}})
	must.NoError(t, err)
	waitfor.True(t, "the drain to complete", func() bool { return !nodeByID(t, s, drained.ID).Drain })
	node := nodeByID(t, s, drained.ID)
	must.Nil(t, node.DrainStrategy)
	must.Eq(t, structs.NodeSchedulingIneligible, node.SchedulingEligibility)
}

func TestDrain_DeadlineStopsWhatIsLeft(t *testing.T) {
	s := startServer(t, testConfig(t, "dev"))
	waitForLeader(t, s)
	ctx := testCtx(t)
	drained := registerNodes(t, s, 1)[0]
	mustRegister(t, s, testJob("report"))
	waitfor.True(t, "the job placed", func() bool { return len(liveAllocs(t, s, "report")) == 1 })
	first := liveAllocs(t, s, "report")[0]
	other := fakeNode("other")
	_, err := s.NodeRegister(ctx, other)
	must.NoError(t, err)

	_, err = s.NodeUpdateDrain(ctx, drained.ID, &structs.DrainStrategy{Deadline: 500 * time.Millisecond}, false)
	must.NoError(t, err)
	waitfor.True(t, "the batch allocation stopped and placed elsewhere", func() bool {
		live := liveAllocs(t, s, "report")
		return len(live) == 1 && live[0].NodeID == other.ID
	})
	stopped, err := s.State().AllocByID(nil, first.ID)
	must.NoError(t, err)
	must.Eq(t, drainer.DeadlineDescription, stopped.DesiredDescription)
	waitfor.True(t, "the drain to complete", func() bool { return !nodeByID(t, s, drained.ID).Drain })
}

// TestDrain_EndsWithACLsOn: the drainer ends a drain with a write of the
// server's own, which no user's permission decides.
func TestDrain_EndsWithACLsOn(t *testing.T) {
	s, _ := aclServer(t)
	drained := registerNodes(t, s, 1)[0]
	_, err := s.NodeUpdateDrain(testCtx(t), drained.ID, &structs.DrainStrategy{Deadline: time.Hour}, false)
	must.NoError(t, err)
	waitfor.True(t, "the drain of an empty node to complete", func() bool { return !nodeByID(t, s, drained.ID).Drain })
}

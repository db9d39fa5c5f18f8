package nomad

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

func TestPlanDrain(t *testing.T) {
	yes := true
	alloc := func(id, jobType string, migrate bool) *structs.Allocation {
		a := &structs.Allocation{
			ID:            id,
			Job:           &structs.Job{Type: jobType},
			DesiredStatus: structs.AllocDesiredStatusRun,
			ClientStatus:  structs.AllocClientStatusRunning,
		}
		if migrate {
			a.DesiredTransition.Migrate = &yes
		}
		return a
	}
	done := alloc("done", structs.JobTypeService, false)
	done.ClientStatus = structs.AllocClientStatusComplete
	ids := func(allocs []*structs.Allocation) []string {
		var out []string
		for _, a := range allocs {
			out = append(out, a.ID)
		}
		return out
	}
	cases := []struct {
		name                  string
		allocs                []*structs.Allocation
		forced, ignoreSystem  bool
		migrate, stop, system []string
		done                  bool
	}{
		{name: "empty node", done: true},
		{name: "finished allocations only", allocs: []*structs.Allocation{done}, done: true},
		{
			name:    "service migrates, batch finishes, system waits",
			allocs:  []*structs.Allocation{alloc("svc", structs.JobTypeService, false), alloc("b", structs.JobTypeBatch, false), alloc("sys", structs.JobTypeSystem, false)},
			migrate: []string{"svc"},
		},
		{
			name:   "service already migrating",
			allocs: []*structs.Allocation{alloc("svc", structs.JobTypeService, true)},
		},
		{
			name:   "system last",
			allocs: []*structs.Allocation{alloc("sys", structs.JobTypeSystem, false), done},
			system: []string{"sys"},
		},
		{
			name:         "system ignored",
			allocs:       []*structs.Allocation{alloc("sys", structs.JobTypeSystem, false)},
			ignoreSystem: true,
			done:         true,
		},
		{
			name:   "deadline passed",
			allocs: []*structs.Allocation{alloc("svc", structs.JobTypeService, true), alloc("b", structs.JobTypeSysbatch, false), alloc("sys", structs.JobTypeSystem, false)},
			forced: true,
			stop:   []string{"svc", "b"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			node := &structs.Node{ID: "n", DrainStrategy: &structs.DrainStrategy{IgnoreSystemJobs: c.ignoreSystem}}
			act := planDrain(node, c.allocs, c.forced)
			must.Eq(t, c.migrate, ids(act.migrate))
			must.Eq(t, c.stop, ids(act.stop))
			must.Eq(t, c.system, ids(act.system))
			must.Eq(t, c.done, act.done)
		})
	}
}

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
	must.True(t, isTrue(old.DesiredTransition.Migrate))
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
	must.Eq(t, drainDeadlineDesc, stopped.DesiredDescription)
	waitfor.True(t, "the drain to complete", func() bool { return !nodeByID(t, s, drained.ID).Drain })
}

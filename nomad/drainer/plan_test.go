package drainer

import (
	"testing"

	"github.com/shoenig/test/must"

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

package nomad

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

// TestPeriodic_OverlapReplaceStopsThePreviousChild: a job whose overlap
// is "replace" stops its running child at each launch, scheduled or
// forced, and never skips one.
func TestPeriodic_OverlapReplaceStopsThePreviousChild(t *testing.T) {
	s := startServer(t, testConfig(t, "dev"))
	waitForLeader(t, s)
	job := periodicJobOf("replacing", "0 3 * * *")
	job.Periodic.Overlap = structs.PeriodicOverlapReplace
	mustRegister(t, s, job)
	waitfor.True(t, "the periodic job to run", func() bool { return jobStatus(t, s, "replacing") == structs.JobStatusRunning })

	// No client runs the children: each stays pending until replaced.
	ctx := testCtx(t)
	_, err := s.PeriodicForce(ctx, structs.DefaultNamespace, "replacing")
	must.NoError(t, err)
	first := children(t, s, "replacing")
	must.Len(t, 1, first)
	time.Sleep(1100 * time.Millisecond) // a child is named by its launch second
	_, err = s.PeriodicForce(ctx, structs.DefaultNamespace, "replacing")
	must.NoError(t, err)
	kids := children(t, s, "replacing")
	must.Len(t, 2, kids)
	for _, k := range kids {
		must.Eq(t, k.ID == first[0].ID, k.Stop, must.Sprintf("child %s", k.ID))
	}
	waitfor.True(t, "the replaced child to be dead", func() bool { return jobStatus(t, s, first[0].ID) == structs.JobStatusDead })
}

// TestSystemGC_keepsLastAndWhatRuns: `system gc` removes the dead
// children beyond keep_last, with their evaluations, and keeps the newest
// dead one, the running one and the live parent.
func TestSystemGC_keepsLastAndWhatRuns(t *testing.T) {
	cfg := testConfig(t, "dev")
	cfg.DisableGC = true
	s := startServer(t, cfg)
	waitForLeader(t, s)
	job := periodicJobOf("kept", "0 3 * * *")
	job.Periodic.Overlap = structs.PeriodicOverlapReplace
	job.Periodic.KeepLast = 1
	mustRegister(t, s, job)
	waitfor.True(t, "the periodic job to run", func() bool { return jobStatus(t, s, "kept") == structs.JobStatusRunning })
	ctx := testCtx(t)
	for i := range 3 {
		if i > 0 {
			time.Sleep(1100 * time.Millisecond)
		}
		_, err := s.PeriodicForce(ctx, structs.DefaultNamespace, "kept")
		must.NoError(t, err)
	}
	kids := children(t, s, "kept")
	must.Len(t, 3, kids)
	waitfor.True(t, "two replaced children dead", func() bool {
		return jobStatus(t, s, kids[0].ID) == structs.JobStatusDead && jobStatus(t, s, kids[1].ID) == structs.JobStatusDead
	})
	oldest := kids[0]
	evals, err := s.State().EvalsByJob(nil, structs.DefaultNamespace, oldest.ID)
	must.NoError(t, err)
	must.SliceNotEmpty(t, evals)
	waitfor.True(t, "the oldest child's evaluations terminal", func() bool {
		evals, err := s.State().EvalsByJob(nil, structs.DefaultNamespace, oldest.ID)
		must.NoError(t, err)
		for _, e := range evals {
			if !e.TerminalStatus() {
				return false
			}
		}
		return true
	})

	resp, err := s.GarbageCollect(ctx)
	must.NoError(t, err)
	must.Eq(t, 1, resp.Jobs)
	left := jobIDs(children(t, s, "kept"))
	must.Eq(t, []string{kids[1].ID, kids[2].ID}, left)
	evals, err = s.State().EvalsByJob(nil, structs.DefaultNamespace, oldest.ID)
	must.NoError(t, err)
	must.Len(t, 0, evals)
	must.Eq(t, structs.JobStatusRunning, jobStatus(t, s, "kept"))

	// Nothing more to collect.
	resp, err = s.GarbageCollect(ctx)
	must.NoError(t, err)
	must.Eq(t, 0, resp.Jobs+resp.Evals+resp.Allocs+resp.Nodes)
	must.Eq(t, 0, resp.Index)
}

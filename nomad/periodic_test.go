package nomad

import (
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/nomad/periodic"
	"github.com/drover-io/drover/structs"
)

// children returns the children of a periodic job.
// periodicJob is a periodic batch job launched on the cron specs.
func periodicJobOf(id string, specs ...string) *structs.Job {
	job := testJob(id)
	job.Periodic = &structs.PeriodicConfig{Enabled: true, Specs: specs, SpecType: structs.PeriodicSpecCron}
	job.Canonicalize()
	return job
}

func children(t *testing.T, s *Server, parentID string) []*structs.Job {
	t.Helper()
	jobs, err := s.State().JobChildren(nil, structs.DefaultNamespace, parentID)
	must.NoError(t, err)
	return jobs
}

func TestPeriodic_ForceLaunch(t *testing.T) {
	s := startServer(t, testConfig(t, "dev"))
	waitForLeader(t, s)
	ctx := testCtx(t)
	registerNodes(t, s, 1)
	mustRegister(t, s, periodicJobOf("nightly", "0 3 * * *"))
	waitfor.True(t, "the periodic job to run", func() bool { return jobStatus(t, s, "nightly") == structs.JobStatusRunning })

	evalID, err := s.PeriodicForce(ctx, structs.DefaultNamespace, "nightly")
	must.NoError(t, err)
	kids := children(t, s, "nightly")
	must.Len(t, 1, kids)
	child := kids[0]
	must.StrHasPrefix(t, "nightly/periodic-", child.ID)
	must.Eq(t, "nightly", child.ParentID)
	must.Nil(t, child.Periodic)
	eval, err := s.State().EvalByID(nil, evalID)
	must.NoError(t, err)
	must.Eq(t, child.ID, eval.JobID)
	must.Eq(t, structs.EvalTriggerPeriodicJob, eval.TriggeredBy)
	launch, err := s.State().PeriodicLaunchByID(nil, structs.DefaultNamespace, "nightly")
	must.NoError(t, err)
	must.NotNil(t, launch)
	must.Eq(t, child.ID, periodic.ChildID("nightly", launch.Launch))

	waitfor.True(t, "the child to be placed", func() bool { return len(liveAllocs(t, s, child.ID)) == 1 })
	must.StrHasPrefix(t, child.ID+".group[0]", liveAllocs(t, s, child.ID)[0].Name)

	_, err = s.PeriodicForce(ctx, structs.DefaultNamespace, "missing")
	must.ErrorIs(t, err, ErrNotFound)
	mustRegister(t, s, testJob("plain"))
	_, err = s.PeriodicForce(ctx, structs.DefaultNamespace, "plain")
	must.ErrorIs(t, err, ErrInvalidRequest)
	must.ErrorContains(t, err, "not periodic")
}

func TestPeriodic_LaunchesOnScheduleAndProhibitsOverlap(t *testing.T) {
	cfg := testConfig(t, "dev")
	skipped := countLogs(cfg, "skipping periodic launch")
	s := startServer(t, cfg)
	waitForLeader(t, s)
	job := periodicJobOf("every-second", "* * * * * * *")
	job.Periodic.ProhibitOverlap = true
	mustRegister(t, s, job)

	// No client runs the first child, so it never dies: later launches
	// are skipped.
	waitfor.True(t, "a child", func() bool { return len(children(t, s, "every-second")) == 1 })
	waitfor.True(t, "two launches skipped", func() bool { return skipped.n.Load() >= 2 })
	kids := children(t, s, "every-second")
	must.Len(t, 1, kids, must.Sprintf("overlapping launches: %v", jobIDs(kids)))

	// The parent's one evaluation of kind says when and why.
	var skips []*structs.Evaluation
	waitfor.True(t, "the skip recorded", func() bool {
		evals, err := s.State().EvalsByJob(nil, structs.DefaultNamespace, "every-second")
		must.NoError(t, err)
		skips = evals
		return len(evals) == 1 && evals[0].ModifyIndex > evals[0].CreateIndex
	})
	must.Eq(t, structs.EvalStatusCancelled, skips[0].Status)
	must.Eq(t, structs.EvalTriggerPeriodicJob, skips[0].TriggeredBy)
	must.Eq(t, SkippedLaunchPrefix+kids[0].ID+" was still running and the job prohibits overlap", skips[0].StatusDescription)
	must.True(t, skips[0].CreateTime > kids[0].SubmitTime, must.Sprint("the skipped launch's time"))

	// Once it is dead, the schedule goes on.
	_, err := s.DeregisterJob(testCtx(t), &JobDeregisterRequest{Namespace: structs.DefaultNamespace, JobID: kids[0].ID})
	must.NoError(t, err)
	waitfor.True(t, "the first child to be dead", func() bool { return jobStatus(t, s, kids[0].ID) == structs.JobStatusDead })
	waitfor.True(t, "a second child", func() bool { return len(children(t, s, "every-second")) == 2 })
}

func jobIDs(jobs []*structs.Job) []string {
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	return ids
}

func TestPeriodic_NewLeaderKeepsSchedule(t *testing.T) {
	c := startCluster(t)
	leader := c.waitForOneLeader(c.servers)
	mustRegister(t, leader, periodicJobOf("ticker", "* * * * * * *"))
	waitfor.True(t, "a child from the first leader", func() bool { return len(children(t, leader, "ticker")) > 0 })

	must.NoError(t, leader.Shutdown())
	var rest []*Server
	for _, s := range c.servers {
		if s != leader {
			rest = append(rest, s)
		}
	}
	next := c.waitForOneLeader(rest)
	elected := time.Now()
	waitfor.True(t, "a child from the new leader", func() bool {
		for _, child := range children(t, next, "ticker") {
			at := strings.TrimPrefix(child.ID, "ticker"+periodic.ChildSeparator)
			if at > periodic.ChildID("", elected)[len(periodic.ChildSeparator):] {
				return true
			}
		}
		return false
	})
	launch, err := next.State().PeriodicLaunchByID(nil, structs.DefaultNamespace, "ticker")
	must.NoError(t, err)
	must.True(t, launch.Launch.After(elected.Add(-time.Second)))
}

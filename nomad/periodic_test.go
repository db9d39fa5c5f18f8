package nomad

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

func periodicJob(id string, specs ...string) *structs.Job {
	job := testJob(id)
	job.Periodic = &structs.PeriodicConfig{Enabled: true, Specs: specs, SpecType: structs.PeriodicSpecCron}
	job.Canonicalize()
	return job
}

func TestNextLaunch(t *testing.T) {
	base := time.Date(2026, 3, 1, 10, 7, 30, 0, time.UTC)
	cases := []struct {
		name  string
		specs []string
		tz    string
		want  time.Time
	}{
		{"every five minutes", []string{"*/5 * * * *"}, "", time.Date(2026, 3, 1, 10, 10, 0, 0, time.UTC)},
		{"earliest of several", []string{"0 12 * * *", "30 10 * * *"}, "", time.Date(2026, 3, 1, 10, 30, 0, 0, time.UTC)},
		{"in the job's time zone", []string{"0 12 * * *"}, "America/New_York", time.Date(2026, 3, 1, 17, 0, 0, 0, time.UTC)},
		{"seconds field", []string{"*/10 * * * * * *"}, "", time.Date(2026, 3, 1, 10, 7, 40, 0, time.UTC)},
		{"never again", []string{"0 0 1 1 * 2020"}, "", time.Time{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			job := periodicJob("p", c.specs...)
			job.Periodic.TimeZone = c.tz
			next, err := nextLaunch(job, base)
			must.NoError(t, err)
			must.True(t, c.want.Equal(next), must.Sprintf("want %v, got %v", c.want, next))
		})
	}
	bad := periodicJob("p", "*/5 * * * *")
	bad.Periodic.TimeZone = "Mars/Olympus"
	_, err := nextLaunch(bad, base)
	must.ErrorContains(t, err, "Mars/Olympus")
}

// fakeLauncher records launches; running says whether a child still runs.
type fakeLauncher struct {
	mu       sync.Mutex
	launches []time.Time
	skips    []time.Time
	running  bool
}

func (f *fakeLauncher) launch(_ context.Context, _ *structs.Job, at time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.launches = append(f.launches, at)
	return nil
}

func (f *fakeLauncher) runningChild(*structs.Job) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.running {
		return "p/periodic-1", nil
	}
	return "", nil
}

func (f *fakeLauncher) skipped(_ context.Context, _ *structs.Job, at time.Time, _ string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.skips = append(f.skips, at)
	return nil
}

func (f *fakeLauncher) skipList() []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.skips)
}

func (f *fakeLauncher) setRunning(running bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.running = running
}

func (f *fakeLauncher) list() []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Time(nil), f.launches...)
}

// startDispatcher runs an enabled dispatcher over launcher until the
// (synctest) test ends.
func startDispatcher(t *testing.T, launcher periodicLauncher) *periodicDispatcher {
	d := newPeriodicDispatcher(hclog.NewNullLogger(), launcher, time.Now)
	d.SetEnabled(true)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return d
}

func TestPeriodicDispatcher_LaunchesOnSchedule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var l fakeLauncher
		d := startDispatcher(t, &l)
		start := time.Now() // synctest's clock: midnight UTC, 2000-01-01
		d.Add(periodicJob("p", "*/5 * * * *"))

		time.Sleep(4 * time.Minute)
		synctest.Wait()
		must.Len(t, 0, l.list())

		time.Sleep(7 * time.Minute)
		synctest.Wait()
		launches := l.list()
		must.Len(t, 2, launches)
		must.Eq(t, start.Add(5*time.Minute), launches[0])
		must.Eq(t, start.Add(10*time.Minute), launches[1])

		// A stopped job is forgotten.
		stopped := periodicJob("p", "*/5 * * * *")
		stopped.Stop = true
		d.Add(stopped)
		time.Sleep(time.Hour)
		synctest.Wait()
		must.Len(t, 2, l.list())
	})
}

func TestPeriodicDispatcher_ProhibitOverlapSkips(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &fakeLauncher{running: true}
		d := startDispatcher(t, l)
		job := periodicJob("p", "* * * * *")
		job.Periodic.ProhibitOverlap = true
		d.Add(job)
		overlapping := periodicJob("q", "* * * * *")
		d.Add(overlapping)

		// Both come due; only the job that allows overlap launches, and
		// the skip of the other is recorded.
		time.Sleep(90 * time.Second)
		synctest.Wait()
		must.Len(t, 1, l.list())
		must.Len(t, 1, l.skipList())

		// Once the child is dead, the next launch goes ahead.
		l.setRunning(false)
		time.Sleep(time.Minute)
		synctest.Wait()
		must.Len(t, 3, l.list())
		must.Len(t, 1, l.skipList())
	})
}

func TestPeriodicDispatcher_RemoveAndDisable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var l fakeLauncher
		d := startDispatcher(t, &l)
		d.Add(periodicJob("p", "* * * * *"))
		d.Add(periodicJob("q", "* * * * *"))
		d.Remove(structs.DefaultNamespace, "p")
		time.Sleep(90 * time.Second)
		synctest.Wait()
		must.Len(t, 1, l.list())

		d.SetEnabled(false)
		d.Add(periodicJob("r", "* * * * *"))
		time.Sleep(time.Hour)
		synctest.Wait()
		must.Len(t, 1, l.list(), must.Sprint("a follower launches nothing"))
	})
}

// children returns the children of a periodic job.
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
	mustRegister(t, s, periodicJob("nightly", "0 3 * * *"))
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
	must.Eq(t, child.ID, PeriodicChildID("nightly", launch.Launch))

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
	job := periodicJob("every-second", "* * * * * * *")
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
	mustRegister(t, leader, periodicJob("ticker", "* * * * * * *"))
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
			at := strings.TrimPrefix(child.ID, "ticker"+periodicChildSeparator)
			if at > PeriodicChildID("", elected)[len(periodicChildSeparator):] {
				return true
			}
		}
		return false
	})
	launch, err := next.State().PeriodicLaunchByID(nil, structs.DefaultNamespace, "ticker")
	must.NoError(t, err)
	must.True(t, launch.Launch.After(elected.Add(-time.Second)))
}

package periodic

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/nomad/internal/fixture"
	"github.com/drover-io/drover/structs"
)

// periodicJob is a periodic batch job launched on the cron specs.
func periodicJob(id string, specs ...string) *structs.Job {
	job := fixture.Job(id)
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
			next, err := NextLaunch(job, base)
			must.NoError(t, err)
			must.True(t, c.want.Equal(next), must.Sprintf("want %v, got %v", c.want, next))
		})
	}
	bad := periodicJob("p", "*/5 * * * *")
	bad.Periodic.TimeZone = "Mars/Olympus"
	_, err := NextLaunch(bad, base)
	must.ErrorContains(t, err, "Mars/Olympus")
}

// fakeLauncher records launches; running says whether a child still runs.
type fakeLauncher struct {
	mu       sync.Mutex
	launches []time.Time
	skips    []time.Time
	running  bool
	// stops records, per StopRunning call, the launches made before it.
	stops   []int
	stopErr error
}

func (f *fakeLauncher) StopRunning(context.Context, *structs.Job, time.Time) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopErr != nil {
		return nil, f.stopErr
	}
	f.stops = append(f.stops, len(f.launches))
	if !f.running {
		return nil, nil
	}
	f.running = false
	return []string{"p/periodic-1"}, nil
}

func (f *fakeLauncher) stopList() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.stops)
}

func (f *fakeLauncher) Launch(_ context.Context, _ *structs.Job, at time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.launches = append(f.launches, at)
	return nil
}

func (f *fakeLauncher) RunningChild(*structs.Job) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.running {
		return "p/periodic-1", nil
	}
	return "", nil
}

func (f *fakeLauncher) Skipped(_ context.Context, _ *structs.Job, at time.Time, _ string) error {
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
func startDispatcher(t *testing.T, launcher Launcher) *Dispatcher {
	d := NewDispatcher(hclog.NewNullLogger(), launcher, time.Now)
	d.SetEnabled(true)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.Run(ctx)
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

// TestPeriodicDispatcher_OverlapReplaceStopsFirst: with overlap =
// "replace", each launch stops the running children before it launches,
// and nothing is skipped; a failed stop launches nothing.
func TestPeriodicDispatcher_OverlapReplaceStopsFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &fakeLauncher{running: true}
		d := startDispatcher(t, l)
		job := periodicJob("p", "* * * * *")
		job.Periodic.Overlap = structs.PeriodicOverlapReplace
		job.Periodic.ProhibitOverlap = false
		d.Add(job)

		time.Sleep(90 * time.Second) // one launch, at 00:01
		synctest.Wait()
		must.Len(t, 1, l.list())
		must.Eq(t, []int{0}, l.stopList()) // stopped before the launch
		must.Len(t, 0, l.skipList())

		l.mu.Lock()
		l.stopErr = errors.New("raft unavailable")
		l.mu.Unlock()
		time.Sleep(time.Minute) // 00:02: the stop fails, no launch
		synctest.Wait()
		must.Len(t, 1, l.list())
	})
}

// TestPeriodicDispatcher_OverlapSkipWins: overlap = "skip" skips as
// prohibit_overlap does, and "allow" launches beside a running child.
func TestPeriodicDispatcher_OverlapSkipWins(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &fakeLauncher{running: true}
		d := startDispatcher(t, l)
		skip := periodicJob("s", "* * * * *")
		skip.Periodic.Overlap = structs.PeriodicOverlapSkip
		d.Add(skip)
		allow := periodicJob("a", "* * * * *")
		allow.Periodic.Overlap = structs.PeriodicOverlapAllow
		d.Add(allow)

		time.Sleep(90 * time.Second)
		synctest.Wait()
		must.Len(t, 1, l.list())
		must.Len(t, 1, l.skipList())
		must.Len(t, 0, l.stopList())
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

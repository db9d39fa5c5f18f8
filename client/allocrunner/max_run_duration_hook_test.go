package allocrunner

import (
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/state"
	"github.com/drover-io/drover/structs"
)

// fakeDeadlineRunner stands in for the alloc runner: it records each
// kill, and records the expiry as the runner does.
type fakeDeadlineRunner struct {
	mu           sync.Mutex
	clientStatus string
	exceeded     bool
	kills        []time.Time
}

func (f *fakeDeadlineRunner) killAll(reason state.KillReason) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if reason == state.KillReasonMaxRunDuration {
		f.exceeded = true
	}
	f.kills = append(f.kills, time.Now())
}

func (f *fakeDeadlineRunner) Alloc() *structs.Allocation {
	f.mu.Lock()
	defer f.mu.Unlock()
	return &structs.Allocation{ClientStatus: f.clientStatus}
}

func (f *fakeDeadlineRunner) recordedKillReason() state.KillReason {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.exceeded {
		return state.KillReasonMaxRunDuration
	}
	return ""
}

func (f *fakeDeadlineRunner) killTimes() []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Time(nil), f.kills...)
}

// boundedAlloc is a batch allocation created at created whose group has
// max_run_duration d; d 0 means none.
func boundedAlloc(created time.Time, d time.Duration) *structs.Allocation {
	a := testAlloc(mockTask("main", map[string]any{"run_for": "1h"}))
	a.CreateTime = created.UnixNano()
	if d > 0 {
		a.Job.TaskGroups[0].MaxRunDuration = &d
	}
	return a
}

// withMaxRunDuration returns a copy of a whose group has max_run_duration
// d; d 0 removes it.
func withMaxRunDuration(a *structs.Allocation, d time.Duration) *structs.Allocation {
	c := a.Copy()
	c.Job.TaskGroups[0].MaxRunDuration = nil
	if d > 0 {
		c.Job.TaskGroups[0].MaxRunDuration = &d
	}
	return c
}

func newTestDeadlineHook(alloc *structs.Allocation, runner *fakeDeadlineRunner) (*maxRunDurationHook, *metricsRecorder) {
	rec := newMetricsRecorder()
	m := newMaxRunDurationMetrics(rec.metrics, alloc, nil)
	return newMaxRunDurationHook(alloc, runner, m, time.Second, hclog.NewNullLogger()), rec
}

func TestMaxRunDurationHook_FiresAtCreateTimePlusDuration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		// Created 3s ago with 10s to run: 7s are left.
		runner := &fakeDeadlineRunner{}
		h, rec := newTestDeadlineHook(boundedAlloc(start.Add(-3*time.Second), 10*time.Second), runner)
		must.NoError(t, h.Prerun())

		time.Sleep(7*time.Second - time.Nanosecond)
		synctest.Wait()
		must.SliceEmpty(t, runner.killTimes())

		time.Sleep(time.Nanosecond)
		synctest.Wait()
		must.Eq(t, []time.Time{start.Add(7 * time.Second)}, runner.killTimes())
		must.Eq(t, 1, rec.counter(metricMaxRunExceeded))

		// It fires once.
		time.Sleep(time.Hour)
		must.Len(t, 1, runner.killTimes())
		must.NoError(t, h.Postrun())
	})
}

func TestMaxRunDurationHook_MovesOnlyOnChangedDuration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		alloc := boundedAlloc(start, 10*time.Second)
		runner := &fakeDeadlineRunner{}
		h, _ := newTestDeadlineHook(alloc, runner)
		must.NoError(t, h.Prerun())
		must.Eq(t, start.Add(10*time.Second), h.armedDeadline)

		// An update that leaves the duration alone keeps the deadline,
		// whatever CreateTime it carries.
		time.Sleep(4 * time.Second)
		same := alloc.Copy()
		same.Job.Version = 1
		same.CreateTime = time.Now().UnixNano()
		must.NoError(t, h.Update(&RunnerUpdateRequest{Alloc: same}))
		must.Eq(t, start.Add(10*time.Second), h.armedDeadline)

		// A changed one moves it, on the allocation's original anchor.
		must.NoError(t, h.Update(&RunnerUpdateRequest{Alloc: withMaxRunDuration(alloc, 20*time.Second)}))
		must.Eq(t, start.Add(20*time.Second), h.armedDeadline)

		time.Sleep(time.Hour)
		must.Eq(t, []time.Time{start.Add(20 * time.Second)}, runner.killTimes())
		must.NoError(t, h.Postrun())
	})
}

func TestMaxRunDurationHook_PastDeadlineFiresAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The agent comes back an hour after the allocation was created
		// with a 10s budget.
		runner := &fakeDeadlineRunner{}
		h, rec := newTestDeadlineHook(boundedAlloc(time.Now().Add(-time.Hour), 10*time.Second), runner)
		start := time.Now()
		must.NoError(t, h.Prerun())
		// Enforced before Prerun returned: no task gets to start.
		must.Eq(t, []time.Time{start}, runner.killTimes())
		must.Eq(t, 1, rec.counter(metricMaxRunExceeded))
		must.NoError(t, h.Postrun())
	})
}

func TestMaxRunDurationHook_LoweredBelowTimeUsedFiresAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		alloc := boundedAlloc(start, time.Minute)
		runner := &fakeDeadlineRunner{}
		h, _ := newTestDeadlineHook(alloc, runner)
		must.NoError(t, h.Prerun())
		time.Sleep(20 * time.Second)
		must.NoError(t, h.Update(&RunnerUpdateRequest{Alloc: withMaxRunDuration(alloc, 10*time.Second)}))
		must.Eq(t, []time.Time{start.Add(20 * time.Second)}, runner.killTimes())

		// Once enforced, a raised duration does not undo it.
		must.NoError(t, h.Update(&RunnerUpdateRequest{Alloc: withMaxRunDuration(alloc, time.Hour)}))
		time.Sleep(2 * time.Hour)
		must.Len(t, 1, runner.killTimes())
		must.NoError(t, h.Postrun())
	})
}

func TestMaxRunDurationHook_StopsOnPostrunShutdownDestroy(t *testing.T) {
	stops := map[string]func(*maxRunDurationHook){
		"postrun":  func(h *maxRunDurationHook) { must.NoError(t, h.Postrun()) },
		"shutdown": func(h *maxRunDurationHook) { h.Shutdown() },
		"destroy":  func(h *maxRunDurationHook) { must.NoError(t, h.Destroy()) },
	}
	for name, stop := range stops {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				alloc := boundedAlloc(time.Now(), 10*time.Second)
				runner := &fakeDeadlineRunner{}
				h, rec := newTestDeadlineHook(alloc, runner)
				must.NoError(t, h.Prerun())
				time.Sleep(5 * time.Second)
				stop(h)
				must.Nil(t, h.stopGauges)
				emitted := rec.gaugeSets()

				// Nothing fires, nothing is reported, and nothing arms
				// again.
				must.NoError(t, h.Update(&RunnerUpdateRequest{Alloc: withMaxRunDuration(alloc, 20*time.Second)}))
				must.Nil(t, h.stopGauges)
				time.Sleep(time.Hour)
				must.SliceEmpty(t, runner.killTimes())
				must.Eq(t, emitted, rec.gaugeSets())
			})
		})
	}
}

func TestMaxRunDurationHook_ArmsNothing(t *testing.T) {
	cases := []struct {
		name         string
		alloc        func(time.Time) *structs.Allocation
		clientStatus string
	}{
		{name: "no max_run_duration", alloc: func(now time.Time) *structs.Allocation { return boundedAlloc(now, 0) }},
		{name: "service job", alloc: func(now time.Time) *structs.Allocation {
			a := boundedAlloc(now, 10*time.Second)
			a.Job.Type = structs.JobTypeService
			return a
		}},
		{name: "no create time", alloc: func(now time.Time) *structs.Allocation {
			a := boundedAlloc(now, 10*time.Second)
			a.CreateTime = 0
			return a
		}},
		{name: "deadline beyond int64 nanoseconds", alloc: func(now time.Time) *structs.Allocation {
			return boundedAlloc(now, time.Duration(math.MaxInt64))
		}},
		{name: "desired stop", alloc: func(now time.Time) *structs.Allocation {
			a := boundedAlloc(now, 10*time.Second)
			a.DesiredStatus = structs.AllocDesiredStatusStop
			return a
		}},
		{name: "evicted", alloc: func(now time.Time) *structs.Allocation {
			a := boundedAlloc(now, 10*time.Second)
			a.DesiredStatus = structs.AllocDesiredStatusEvict
			return a
		}},
		{name: "tasks already done", clientStatus: structs.AllocClientStatusComplete,
			alloc: func(now time.Time) *structs.Allocation { return boundedAlloc(now, 10*time.Second) }},
		{name: "lost", clientStatus: structs.AllocClientStatusLost,
			alloc: func(now time.Time) *structs.Allocation { return boundedAlloc(now, 10*time.Second) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				runner := &fakeDeadlineRunner{clientStatus: c.clientStatus}
				// Created long ago: an armed deadline would fire at once.
				h, rec := newTestDeadlineHook(c.alloc(time.Now().Add(-time.Hour)), runner)
				must.NoError(t, h.Prerun())
				must.Nil(t, h.stopGauges)
				time.Sleep(time.Hour)
				must.SliceEmpty(t, runner.killTimes())
				must.Eq(t, 0, rec.gaugeSets())
				must.NoError(t, h.Postrun())
			})
		})
	}
}

func TestMaxRunDurationHook_UpdateDisarms(t *testing.T) {
	cases := map[string]func(*structs.Allocation) *structs.Allocation{
		"duration removed": func(a *structs.Allocation) *structs.Allocation { return withMaxRunDuration(a, 0) },
		"desired stop": func(a *structs.Allocation) *structs.Allocation {
			c := a.Copy()
			c.DesiredStatus = structs.AllocDesiredStatusStop
			return c
		},
	}
	for name, update := range cases {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				alloc := boundedAlloc(time.Now(), 10*time.Second)
				runner := &fakeDeadlineRunner{}
				h, _ := newTestDeadlineHook(alloc, runner)
				must.NoError(t, h.Prerun())
				time.Sleep(5 * time.Second)
				must.NoError(t, h.Update(&RunnerUpdateRequest{Alloc: update(alloc)}))
				must.Nil(t, h.stopGauges)
				time.Sleep(time.Hour)
				must.SliceEmpty(t, runner.killTimes())
				must.NoError(t, h.Postrun())
			})
		})
	}
}

func TestMaxRunDurationHook_UpdateBeforePrerunArmsNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		alloc := boundedAlloc(start, 10*time.Second)
		runner := &fakeDeadlineRunner{}
		h, _ := newTestDeadlineHook(alloc, runner)
		must.NoError(t, h.Update(&RunnerUpdateRequest{Alloc: withMaxRunDuration(alloc, 30*time.Second)}))
		must.Nil(t, h.stopGauges)
		// Prerun arms what the latest update says.
		must.NoError(t, h.Prerun())
		time.Sleep(time.Hour)
		must.Eq(t, []time.Time{start.Add(30 * time.Second)}, runner.killTimes())
		must.NoError(t, h.Postrun())
	})
}

func TestMaxRunDurationHook_ExpiryRecordedEarlierIsNotCountedAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		runner := &fakeDeadlineRunner{exceeded: true}
		h, rec := newTestDeadlineHook(boundedAlloc(time.Now().Add(-time.Hour), 10*time.Second), runner)
		must.NoError(t, h.Prerun())
		// The runner finishes the recorded kill on its own; the hook
		// only reports until the allocation ends.
		must.SliceEmpty(t, runner.killTimes())
		must.Eq(t, 0, rec.counter(metricMaxRunExceeded))
		must.NotNil(t, h.stopGauges)
		time.Sleep(3 * time.Second)
		must.NoError(t, h.Postrun())
		must.Greater(t, 0, rec.gaugeSets())
	})
}

func TestMaxRunDurationHook_NothingToKillIsNotCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The tasks died just before the deadline: the runner's kill
		// finds nothing to kill and records nothing.
		runner := &noopKiller{}
		rec := newMetricsRecorder()
		alloc := boundedAlloc(time.Now(), 10*time.Second)
		h := newMaxRunDurationHook(alloc, runner, newMaxRunDurationMetrics(rec.metrics, alloc, nil), time.Second, hclog.NewNullLogger())
		must.NoError(t, h.Prerun())
		time.Sleep(time.Minute)
		must.Eq(t, 1, runner.calls.Load())
		must.Eq(t, 0, rec.counter(metricMaxRunExceeded))
		must.NoError(t, h.Postrun())
	})
}

// noopKiller is a runner whose tasks are all dead: its kill does nothing.
type noopKiller struct{ calls atomic.Int32 }

func (n *noopKiller) killAll(state.KillReason)             { n.calls.Add(1) }
func (n *noopKiller) Alloc() *structs.Allocation           { return &structs.Allocation{} }
func (n *noopKiller) recordedKillReason() state.KillReason { return "" }

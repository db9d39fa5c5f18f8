package servicecheck

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// scriptedProbe answers each probe with the next of its results (the last
// once they run out) and records when it was asked.
type scriptedProbe struct {
	mu      sync.Mutex
	results []Health
	times   []time.Time
	// block makes each probe wait for its context.
	block bool
}

func (p *scriptedProbe) Probe(ctx context.Context) Result {
	p.mu.Lock()
	p.times = append(p.times, time.Now())
	r := p.results[0]
	if len(p.results) > 1 {
		p.results = p.results[1:]
	}
	block := p.block
	p.mu.Unlock()
	if block {
		<-ctx.Done()
		return Result{Health: Critical, Output: ctx.Err().Error()}
	}
	return Result{Health: r, Output: string(r)}
}

func (p *scriptedProbe) asked() []time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]time.Time(nil), p.times...)
}

func testCheck(p Prober) *Check {
	return &Check{ID: "c1", Name: "alive", Service: "web", Task: "t", Group: "j.g[0]", Mode: ModeHealthiness,
		Interval: 10 * time.Second, Timeout: 2 * time.Second, Probe: p}
}

func TestSet_interval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &scriptedProbe{results: []Health{Passing}}
		s := NewSet([]*Check{testCheck(p)}, nil, nil)
		start := time.Now()
		s.Start()
		synctest.Wait()
		time.Sleep(25 * time.Second)
		synctest.Wait()
		must.Eq(t, []time.Duration{0, 10 * time.Second, 20 * time.Second}, sinceAll(start, p.asked()),
			must.Sprint("the first probe at once, then every interval"))
		st := s.Statuses()
		must.Len(t, 1, st)
		must.Eq(t, "success", st[0].Status)
		must.Eq(t, "alive", st[0].Check)
		must.Eq(t, start.Add(20*time.Second).Unix(), st[0].Timestamp)
		s.Stop()
		must.SliceEmpty(t, s.Statuses(), must.Sprint("a stopped run's checks show nothing"))
		time.Sleep(time.Minute)
		must.Len(t, 3, p.asked(), must.Sprint("no probe after Stop"))
	})
}

func TestSet_timeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &scriptedProbe{results: []Health{Passing}, block: true}
		c := testCheck(p)
		c.Initial = Passing
		s := NewSet([]*Check{c}, nil, nil)
		s.Start()
		synctest.Wait()
		must.Eq(t, "success", s.Statuses()[0].Status, must.Sprint("initial_status until the first result"))
		time.Sleep(c.Timeout + time.Millisecond)
		synctest.Wait()
		st := s.Statuses()[0]
		must.Eq(t, "failure", st.Status)
		must.StrContains(t, st.Output, "deadline exceeded")
		s.Stop()
	})
}

func TestSet_checkRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &scriptedProbe{results: []Health{Critical}}
		c := testCheck(p)
		c.Restart = &structs.CheckRestart{Limit: 3, Grace: 15 * time.Second}
		var mu sync.Mutex
		var reasons []string
		var when []time.Duration
		start := time.Now()
		s := NewSet([]*Check{c}, func(reason string) {
			mu.Lock()
			defer mu.Unlock()
			reasons = append(reasons, reason)
			when = append(when, time.Since(start))
		}, nil)
		s.Start()
		time.Sleep(time.Minute)
		synctest.Wait()
		s.Stop()
		mu.Lock()
		defer mu.Unlock()
		// Results at 0s and 10s are within the grace; 20s, 30s and 40s
		// are the three in a row.
		must.Eq(t, []string{`healthcheck: check "alive" unhealthy`}, reasons)
		must.Eq(t, []time.Duration{40 * time.Second}, when)
	})
}

func sinceAll(start time.Time, ts []time.Time) []time.Duration {
	out := make([]time.Duration, len(ts))
	for i, t := range ts {
		out[i] = t.Sub(start)
	}
	return out
}

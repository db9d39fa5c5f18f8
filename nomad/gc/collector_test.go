package gc

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"
)

// TestCollector_runsEveryInterval: passes run at each interval exactly,
// never forced, and a failed pass does not stop the next.
func TestCollector_runsEveryInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var mu sync.Mutex
		var at []time.Duration
		c := &Collector{
			Interval: 5 * time.Minute,
			Logger:   hclog.NewNullLogger(),
			Collect: func(_ context.Context, force bool) (*Result, error) {
				mu.Lock()
				defer mu.Unlock()
				must.False(t, force)
				at = append(at, time.Since(start))
				if len(at) == 1 {
					return nil, errors.New("raft unavailable")
				}
				return &Result{}, nil
			},
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); c.Run(ctx) }()

		time.Sleep(5*time.Minute - time.Nanosecond)
		synctest.Wait()
		mu.Lock()
		must.Len(t, 0, at)
		mu.Unlock()

		time.Sleep(10*time.Minute + time.Nanosecond)
		synctest.Wait()
		mu.Lock()
		must.Eq(t, []time.Duration{5 * time.Minute, 10 * time.Minute, 15 * time.Minute}, at)
		mu.Unlock()
		cancel()
		<-done
	})
}

// TestCollector_defaultInterval: no interval means Nomad's 5m.
func TestCollector_defaultInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		passes := make(chan time.Time, 4)
		start := time.Now()
		c := &Collector{Logger: hclog.NewNullLogger(), Collect: func(context.Context, bool) (*Result, error) {
			passes <- time.Now()
			return &Result{}, nil
		}}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go c.Run(ctx)
		got := <-passes
		must.Eq(t, DefaultInterval, got.Sub(start))
		cancel()
	})
}

package gc

import (
	"context"
	"time"

	"github.com/hashicorp/go-hclog"
)

// Collector runs a pass of garbage collection every Interval, on the
// leader, until its context ends.
type Collector struct {
	// Interval is job_gc_interval; zero means DefaultInterval.
	Interval time.Duration
	// Collect runs one pass; force ignores the thresholds.
	Collect func(ctx context.Context, force bool) (*Result, error)
	Logger  hclog.Logger
}

// Run collects every Interval until ctx ends. A pass that fails is
// logged and tried again at the next tick.
func (c *Collector) Run(ctx context.Context) {
	interval := c.Interval
	if interval <= 0 {
		interval = DefaultInterval
	}
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		res, err := c.Collect(ctx, false)
		switch {
		case err != nil && ctx.Err() == nil:
			c.Logger.Error("garbage collection failed; trying again at the next interval", "error", err)
		case err == nil && !res.Empty():
			c.Logger.Debug("garbage collected", "jobs", len(res.Jobs), "evals", len(res.Evals),
				"allocs", len(res.Allocs), "nodes", len(res.Nodes))
		}
	}
}

package client

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// The client's garbage collection defaults, Nomad's.
const (
	DefaultGCInterval            = time.Minute
	DefaultGCDiskUsageThreshold  = 80.0
	DefaultGCInodeUsageThreshold = 70.0
	DefaultGCParallelDestroys    = 2
)

// ErrAllocNotTerminal is returned when garbage collection is asked for an
// allocation whose tasks still run: only finished allocations go.
var ErrAllocNotTerminal = errors.New("allocation is not terminal: it still runs on this client")

// The client removes the directories and state of finished allocations
// (never of one whose tasks still run):
//   - beyond gc_max_allocs, the oldest first, as each one finishes;
//   - every gc_interval, while the alloc dir's filesystem is fuller than
//     gc_disk_usage_threshold or gc_inode_usage_threshold percent, the
//     oldest first;
//   - on request: PUT /v1/client/gc (all of them) and
//     /v1/client/allocation/:id/gc (one).
// At most gc_parallel_destroys allocations are destroyed at once.

// runGC checks the alloc dir's filesystem every GCInterval until ctx
// ends.
func (c *Client) runGC(ctx context.Context) {
	ticker := time.NewTicker(c.config.GCInterval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		c.collectForDisk(ctx)
	}
}

// collectForDisk destroys finished allocations, the oldest first, one
// at a time, while the alloc dir's filesystem is past a threshold.
func (c *Client) collectForDisk(ctx context.Context) {
	for {
		full, why, err := c.diskFull()
		if err != nil {
			c.logger.Debug("cannot read the alloc dir's disk usage; only gc_max_allocs applies", "error", err)
			return
		}
		if !full {
			return
		}
		finished := c.finishedRunners()
		if len(finished) == 0 {
			c.logger.Warn("the alloc dir's filesystem is past its garbage collection threshold, and no finished allocation is left to remove", "usage", why)
			return
		}
		e := finished[0]
		c.logger.Info("garbage collecting the oldest finished allocation: disk usage past threshold", "alloc_id", e.ar.ID(), "usage", why)
		done := c.destroyAlloc(e, true)
		select {
		case <-done:
		case <-ctx.Done():
			return
		}
	}
}

// diskFull reports whether the alloc dir's filesystem is fuller than a
// threshold, and which.
func (c *Client) diskFull() (bool, string, error) {
	stat := c.config.statDisk
	if stat == nil {
		stat = statDisk
	}
	u, err := stat(c.config.AllocDir)
	if err != nil {
		return false, "", err
	}
	if p := u.usedPercent(); p > c.config.GCDiskUsageThreshold {
		return true, fmt.Sprintf("disk %.1f%% > gc_disk_usage_threshold %.1f%%", p, c.config.GCDiskUsageThreshold), nil
	}
	if p, ok := u.inodesPercent(); ok && p > c.config.GCInodeUsageThreshold {
		return true, fmt.Sprintf("inodes %.1f%% > gc_inode_usage_threshold %.1f%%", p, c.config.GCInodeUsageThreshold), nil
	}
	return false, "", nil
}

// finishedRunners returns the runners whose allocations have finished
// and are not being destroyed, the oldest first.
func (c *Client) finishedRunners() []*runnerEntry {
	c.mu.Lock()
	var finished []*runnerEntry
	for _, e := range c.runners {
		if !e.finishedAt.IsZero() && !e.destroying {
			finished = append(finished, e)
		}
	}
	c.mu.Unlock()
	slices.SortFunc(finished, func(a, b *runnerEntry) int { return a.finishedAt.Compare(b.finishedAt) })
	return finished
}

// CollectAlloc destroys one finished allocation (its directory and
// state) and returns once it is gone: ErrUnknownAlloc if the client does
// not have it, ErrAllocNotTerminal if its tasks still run.
func (c *Client) CollectAlloc(ctx context.Context, id string) error {
	c.mu.Lock()
	e, ok := c.runners[id]
	c.mu.Unlock()
	finished := false
	if ok {
		// Its tasks have ended once WaitCh is closed, a moment before
		// finishedAt is set.
		select {
		case <-e.ar.WaitCh():
			finished = true
		default:
		}
	}
	switch {
	case !ok:
		return fmt.Errorf("allocation %q: %w", id, ErrUnknownAlloc)
	case !finished:
		return fmt.Errorf("allocation %q: %w", id, ErrAllocNotTerminal)
	}
	c.logger.Info("garbage collecting allocation on request", "alloc_id", id)
	select {
	case <-c.destroyAlloc(e, true):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// CollectAll destroys every finished allocation and returns, once they
// are gone, how many there were.
func (c *Client) CollectAll(ctx context.Context) (int, error) {
	finished := c.finishedRunners()
	dones := make([]<-chan struct{}, 0, len(finished))
	for _, e := range finished {
		dones = append(dones, c.destroyAlloc(e, true))
	}
	for _, done := range dones {
		select {
		case <-done:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	if len(finished) > 0 {
		c.logger.Info("garbage collected every finished allocation on request", "allocs", len(finished))
	}
	return len(finished), nil
}

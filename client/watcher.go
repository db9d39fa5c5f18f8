package client

import (
	"context"
	"time"
)

// Pauses of a failed allocation query.
const (
	watchRetryMin = 100 * time.Millisecond
	watchRetryMax = 5 * time.Second
)

// watchAllocs follows the allocations the servers place on the node, from
// its registration until ctx ends: a blocking query returns the
// AllocModifyIndex of each, and reconcile brings the runners in line.
func (c *Client) watchAllocs(ctx context.Context) {
	select {
	case <-c.registered:
	case <-ctx.Done():
		return
	}
	var index uint64
	retry := time.Duration(0)
	for ctx.Err() == nil {
		allocs, next, err := c.conn.NodeAllocs(ctx, c.identity(), index, c.config.AllocsWait)
		if err == nil {
			err = c.reconcile(ctx, allocs)
		}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			retry = min(max(2*retry, watchRetryMin), watchRetryMax)
			c.logger.Warn("failed to get the node's allocations", "error", err, "retry_in", retry)
			sleepCtx(ctx, retry)
			continue
		}
		retry = 0
		// An index that went back means the servers' state was rebuilt;
		// follow it rather than wait for it to catch up.
		index = next
		c.hbMu.Lock()
		c.allocIndex = next
		c.hbMu.Unlock()
	}
}

// reconcile brings the runners in line with the servers' view: it starts
// new allocations, hands changed ones to their runners and destroys the
// ones the servers no longer list.
func (c *Client) reconcile(ctx context.Context, server map[string]uint64) error {
	var pull []string
	var gone []*runnerEntry
	c.mu.Lock()
	for id, e := range c.runners {
		if _, listed := server[id]; !listed {
			gone = append(gone, e)
		}
	}
	for id := range c.ignored {
		if _, listed := server[id]; !listed {
			delete(c.ignored, id)
		}
	}
	for id, index := range server {
		if c.ignored[id] {
			continue
		}
		if e, ok := c.runners[id]; !ok || index > e.index {
			pull = append(pull, id)
		}
	}
	c.mu.Unlock()

	for _, e := range gone {
		c.destroyAlloc(e, false)
	}
	if len(pull) == 0 {
		return nil
	}
	allocs, err := c.conn.Allocs(ctx, c.identity(), pull)
	if err != nil {
		return err
	}
	c.jobs.ShareAll(allocs)
	shareParts(allocs)
	for _, alloc := range allocs {
		if alloc.NodeID != c.node.ID {
			continue
		}
		c.mu.Lock()
		e, known := c.runners[alloc.ID]
		c.mu.Unlock()
		switch {
		case known:
			c.updateAlloc(e, alloc)
		case alloc.ClientTerminalStatus():
			// Finished before this client saw it (its runner was garbage
			// collected, or its state lost): nothing to run.
			c.mu.Lock()
			c.ignored[alloc.ID] = true
			c.mu.Unlock()
		default:
			c.addAlloc(alloc)
		}
	}
	return nil
}

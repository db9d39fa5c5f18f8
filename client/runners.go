package client

import (
	"time"

	"github.com/drover-io/drover/client/allocrunner"
	"github.com/drover-io/drover/structs"
)

// restoreRunners re-attaches the allocations recorded in the client state:
// each gets its runner back, restored before it runs, so that tasks still
// running are re-attached rather than started again and tasks that ended
// meanwhile report how they ended.
func (c *Client) restoreRunners() {
	allocs, bad, err := c.stateDB.GetAllAllocations()
	if err != nil {
		c.logger.Error("failed to read allocations from the client state", "error", err)
		return
	}
	for id, err := range bad {
		c.logger.Error("skipping unreadable allocation in the client state", "alloc_id", id, "error", err)
	}
	c.jobs.ShareAll(allocs)
	shareParts(allocs)
	for _, alloc := range allocs {
		ar, err := c.newRunner(alloc)
		if err != nil {
			c.logger.Error("failed to restore allocation", "alloc_id", alloc.ID, "error", err)
			continue
		}
		if err := ar.Restore(); err != nil {
			c.logger.Error("failed to restore allocation", "alloc_id", alloc.ID, "error", err)
			continue
		}
		c.logger.Info("restored allocation", "alloc_id", alloc.ID)
		c.startRunner(&runnerEntry{ar: ar, index: alloc.AllocModifyIndex})
	}
}

// shareParts makes the allocations of one pull (or of the client state)
// share their equal parts: decoded, each has its own copy of the
// evaluation, job and group names, of its resources and of its metric's
// counts (see structs.Dedup). Nothing the runners hold is modified in place.
// The scheduler's metric itself is dropped: the client never reads it, and
// it was a third of what a decoded allocation held.
func shareParts(allocs []*structs.Allocation) {
	var d structs.Dedup
	for _, a := range allocs {
		if a != nil {
			a.Metrics = nil
		}
		d.Allocation(a)
	}
}

func (c *Client) newRunner(alloc *structs.Allocation) (*allocrunner.AllocRunner, error) {
	return allocrunner.NewAllocRunner(&allocrunner.Config{
		Alloc:        alloc,
		Logger:       c.logger,
		AllocDirRoot: c.config.AllocDir,
		StateDB:      c.stateDB,
		Drivers:      c.config.Drivers,
		StateUpdater: stateHandlers{c.health, c.services},
		Node:         c.node,
		Artifact:     c.config.Artifact,
		Identities:   identitySigner{c},
		Variables:    variableSources{c},
		Network:      c.network,

		MetricsCollectionInterval: c.config.MetricsInterval,
	})
}

// addAlloc starts running an allocation the servers placed on the node.
func (c *Client) addAlloc(alloc *structs.Allocation) {
	ar, err := c.newRunner(alloc)
	if err != nil {
		c.logger.Error("failed to run allocation", "alloc_id", alloc.ID, "error", err)
		c.reportUnrunnable(alloc, err)
		return
	}
	c.startRunner(&runnerEntry{ar: ar, index: alloc.AllocModifyIndex})
}

// reportUnrunnable tells the servers that an allocation cannot run here,
// so that it does not stay pending for ever.
func (c *Client) reportUnrunnable(alloc *structs.Allocation, err error) {
	c.mu.Lock()
	c.ignored[alloc.ID] = true
	c.mu.Unlock()
	c.batcher.AllocStateUpdated(&structs.Allocation{
		ID:                alloc.ID,
		ClientStatus:      structs.AllocClientStatusFailed,
		ClientDescription: "failed to set up the allocation: " + err.Error(),
	})
}

// startRunner registers a runner and runs it.
func (c *Client) startRunner(e *runnerEntry) {
	id := e.ar.ID()
	c.mu.Lock()
	if c.shuttingDown {
		c.mu.Unlock()
		return
	}
	c.runners[id] = e
	c.runWG.Add(1)
	c.mu.Unlock()

	// One goroutine per allocation: Run returns once the allocation has
	// finished (WaitCh is closed), or once the agent detached it. In the
	// rare case that Destroy ran it first, this one returns at once and
	// waits for the end like the others.
	go func() {
		defer c.runWG.Done()
		e.ar.Run()
		select {
		case <-e.ar.WaitCh():
		case <-c.ctx.Done():
			return
		}
		c.mu.Lock()
		e.finishedAt = time.Now()
		c.mu.Unlock()
		c.collectGarbage()
	}()
}

// updateAlloc hands a newer version of an allocation to its runner.
func (c *Client) updateAlloc(e *runnerEntry, alloc *structs.Allocation) {
	c.mu.Lock()
	if alloc.AllocModifyIndex <= e.index || e.destroying {
		c.mu.Unlock()
		return
	}
	e.index = alloc.AllocModifyIndex
	c.mu.Unlock()
	e.ar.Update(alloc)
}

// destroyAlloc stops an allocation for good and removes its directory and
// state, in the background, at most GCParallelDestroys at once. The
// channel it returns is closed once that is done (at once if the
// allocation is already being destroyed, by then or later, or the client
// shuts down). stillListed records that the servers still list it, so
// that it is not pulled again.
func (c *Client) destroyAlloc(e *runnerEntry, stillListed bool) <-chan struct{} {
	id := e.ar.ID()
	c.mu.Lock()
	if e.destroying || c.shuttingDown {
		done := e.destroyed
		c.mu.Unlock()
		if done == nil {
			closed := make(chan struct{})
			close(closed)
			return closed
		}
		return done
	}
	e.destroying = true
	e.destroyed = make(chan struct{})
	done := e.destroyed
	if stillListed {
		c.ignored[id] = true
	}
	c.runWG.Add(1)
	c.mu.Unlock()

	go func() {
		defer c.runWG.Done()
		defer close(done)
		c.destroySlots <- struct{}{}
		defer func() { <-c.destroySlots }()
		e.ar.Destroy()
		c.services.forget(id)
		c.health.Forget(id)
		c.mu.Lock()
		if c.runners[id] == e {
			delete(c.runners, id)
		}
		c.mu.Unlock()
		c.logger.Debug("destroyed allocation", "alloc_id", id)
	}()
	return done
}

// collectGarbage removes the oldest finished allocations beyond the
// number the client keeps.
func (c *Client) collectGarbage() {
	finished := c.finishedRunners()
	excess := len(finished) - c.config.GCMaxAllocs
	if excess <= 0 {
		return
	}
	for _, e := range finished[:excess] {
		c.logger.Debug("garbage collecting finished allocation", "alloc_id", e.ar.ID())
		c.destroyAlloc(e, true)
	}
}

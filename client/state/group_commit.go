package state

import (
	"sync"

	bolt "go.etcd.io/bbolt"
)

// groupCommit runs writes to a bbolt database so that writers that come
// together share a transaction, and its sync to disk. A write that finds
// no commit under way is committed at once, so a lone write waits for
// nothing; writes that arrive while a commit is under way are committed
// together in the next one. Many allocation runners write together when a
// max_run_duration deadline shared by many allocations passes (each
// records the expiry before it kills): a handful of syncs then, instead of
// one per runner, one after the other.
type groupCommit struct {
	db *bolt.DB

	mu      sync.Mutex
	queue   []*groupWrite
	leading bool // a goroutine is committing the queue
}

// groupWrite is one write and where its outcome goes.
type groupWrite struct {
	fn   func(*bolt.Tx) error
	done chan error
}

// update runs fn in a read-write transaction, possibly shared with other
// writes, and returns once it is committed. fn may run more than once (see
// commit), so it must only put what it was given.
func (g *groupCommit) update(fn func(*bolt.Tx) error) error {
	w := &groupWrite{fn: fn, done: make(chan error, 1)}
	g.mu.Lock()
	g.queue = append(g.queue, w)
	lead := !g.leading
	g.leading = true
	g.mu.Unlock()
	if lead {
		g.lead()
	}
	return <-w.done
}

// lead commits the queued writes in one transaction. Writes queued
// meanwhile are committed by another goroutine, so that the caller who
// led returns as soon as its own write is done.
func (g *groupCommit) lead() {
	g.mu.Lock()
	batch := g.queue
	g.queue = nil
	g.mu.Unlock()

	g.commit(batch)

	g.mu.Lock()
	more := len(g.queue) > 0
	g.leading = more
	g.mu.Unlock()
	if more {
		go g.lead()
	}
}

// commit runs the batch in one transaction. If it fails, each write runs
// again in a transaction of its own, so that only the writes that fail
// report an error.
func (g *groupCommit) commit(batch []*groupWrite) {
	err := g.db.Update(func(tx *bolt.Tx) error {
		for _, w := range batch {
			if err := w.fn(tx); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil || len(batch) == 1 {
		for _, w := range batch {
			w.done <- err
		}
		return
	}
	for _, w := range batch {
		w.done <- g.db.Update(w.fn)
	}
}

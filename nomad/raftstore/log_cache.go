package raftstore

import (
	"fmt"
	"sync"

	"github.com/hashicorp/raft"
)

// LogCache keeps recent raft log entries in memory in front of the
// on-disk log, so that followers applying what they just received, and a
// leader replicating it, need not read it back from disk. Only entries of
// at most maxEntryBytes are kept: a plan of thousands of allocations, or a
// client's update of as many, is megabytes, and a ring of such entries
// held the size of the log's last few hundred writes in memory for
// nothing (the leader applies its own entries from memory, and reading a
// large entry back costs little next to decoding it). And together they
// take at most maxBytes, the oldest going first: a placement's client
// updates, a few allocations each of a few kilobytes, filled the ring
// with a megabyte that no reader needed once followers had applied it.
//
// raft.LogCache keeps every entry whatever its size; this is it with the
// size bounds.
type LogCache struct {
	store         raft.LogStore
	maxEntryBytes int
	maxBytes      int

	mu sync.RWMutex
	// ring holds the entry of index i at i % len(ring), or nil.
	ring []*raft.Log
	// held is the size of the entries in ring; every one of them has an
	// index of at least oldest.
	held   int
	oldest uint64
}

var _ raft.MonotonicLogStore = (*LogCache)(nil)

// NewLogCache returns a cache in front of store of up to capacity
// entries of at most maxEntryBytes each, maxBytes in all.
func NewLogCache(store raft.LogStore, capacity, maxEntryBytes, maxBytes int) (*LogCache, error) {
	if capacity <= 0 || maxEntryBytes <= 0 {
		return nil, fmt.Errorf("raft log cache: capacity (%d) and entry size bound (%d) must be positive", capacity, maxEntryBytes)
	}
	if maxBytes < maxEntryBytes {
		return nil, fmt.Errorf("raft log cache: the bound of all entries (%d bytes) is less than that of one (%d)", maxBytes, maxEntryBytes)
	}
	return &LogCache{store: store, maxEntryBytes: maxEntryBytes, maxBytes: maxBytes, ring: make([]*raft.Log, capacity)}, nil
}

// IsMonotonic is the store's answer: the cache does not change how
// indexes are assigned.
func (c *LogCache) IsMonotonic() bool {
	m, ok := c.store.(raft.MonotonicLogStore)
	return ok && m.IsMonotonic()
}

func (c *LogCache) GetLog(index uint64, log *raft.Log) error {
	c.mu.RLock()
	cached := c.ring[index%uint64(len(c.ring))]
	c.mu.RUnlock()
	if cached != nil && cached.Index == index {
		*log = *cached
		return nil
	}
	return c.store.GetLog(index, log)
}

func (c *LogCache) StoreLog(log *raft.Log) error {
	return c.StoreLogs([]*raft.Log{log})
}

// StoreLogs writes logs to the store and, once written, keeps the small
// ones, dropping the oldest kept beyond maxBytes. A large one empties its
// slot, so that the entry it replaces is not kept either.
func (c *LogCache) StoreLogs(logs []*raft.Log) error {
	if err := c.store.StoreLogs(logs); err != nil {
		return fmt.Errorf("store raft logs: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, l := range logs {
		slot := &c.ring[l.Index%uint64(len(c.ring))]
		if *slot != nil {
			c.held -= entrySize(*slot)
			*slot = nil
		}
		if entrySize(l) > c.maxEntryBytes {
			continue
		}
		if c.held == 0 || l.Index < c.oldest {
			c.oldest = l.Index
		}
		*slot = l
		c.held += entrySize(l)
		c.dropOldest()
	}
	return nil
}

// dropOldest drops the oldest entries until those left take at most
// maxBytes. It ends: the newest entry alone is within the bound, and every
// entry held has an index of at least oldest.
func (c *LogCache) dropOldest() {
	for c.held > c.maxBytes {
		slot := &c.ring[c.oldest%uint64(len(c.ring))]
		if *slot != nil && (*slot).Index == c.oldest {
			c.held -= entrySize(*slot)
			*slot = nil
		}
		c.oldest++
	}
}

func entrySize(l *raft.Log) int { return len(l.Data) + len(l.Extensions) }

func (c *LogCache) FirstIndex() (uint64, error) { return c.store.FirstIndex() }

func (c *LogCache) LastIndex() (uint64, error) { return c.store.LastIndex() }

// DeleteRange empties the cache, then deletes from the store: raft
// deletes to compact the log or to drop entries a new leader overrode.
func (c *LogCache) DeleteRange(lo, hi uint64) error {
	c.mu.Lock()
	clear(c.ring)
	c.held = 0
	c.mu.Unlock()
	return c.store.DeleteRange(lo, hi)
}

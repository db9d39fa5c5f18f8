package nomad

import (
	"fmt"
	"sync"

	"github.com/hashicorp/raft"
)

// raftLogCache keeps recent raft log entries in memory in front of the
// on-disk log, so that followers applying what they just received, and a
// leader replicating it, need not read it back from disk. Only entries of
// at most maxEntryBytes are kept: a plan of thousands of allocations, or a
// client's update of as many, is megabytes, and a ring of such entries
// held the size of the log's last few hundred writes in memory for
// nothing (the leader applies its own entries from memory, and reading a
// large entry back costs little next to decoding it). So the cache holds
// at most len(ring) × maxEntryBytes.
//
// raft.LogCache keeps every entry whatever its size; this is it with the
// size bound.
type raftLogCache struct {
	store         raft.LogStore
	maxEntryBytes int

	mu sync.RWMutex
	// ring holds the entry of index i at i % len(ring), or nil.
	ring []*raft.Log
}

var _ raft.MonotonicLogStore = (*raftLogCache)(nil)

// newRaftLogCache returns a cache of up to capacity entries of at most
// maxEntryBytes each in front of store.
func newRaftLogCache(store raft.LogStore, capacity, maxEntryBytes int) (*raftLogCache, error) {
	if capacity <= 0 || maxEntryBytes <= 0 {
		return nil, fmt.Errorf("raft log cache: capacity (%d) and entry size bound (%d) must be positive", capacity, maxEntryBytes)
	}
	return &raftLogCache{store: store, maxEntryBytes: maxEntryBytes, ring: make([]*raft.Log, capacity)}, nil
}

// IsMonotonic is the store's answer: the cache does not change how
// indexes are assigned.
func (c *raftLogCache) IsMonotonic() bool {
	m, ok := c.store.(raft.MonotonicLogStore)
	return ok && m.IsMonotonic()
}

func (c *raftLogCache) GetLog(index uint64, log *raft.Log) error {
	c.mu.RLock()
	cached := c.ring[index%uint64(len(c.ring))]
	c.mu.RUnlock()
	if cached != nil && cached.Index == index {
		*log = *cached
		return nil
	}
	return c.store.GetLog(index, log)
}

func (c *raftLogCache) StoreLog(log *raft.Log) error {
	return c.StoreLogs([]*raft.Log{log})
}

// StoreLogs writes logs to the store and, once written, keeps the small
// ones. A large one empties its slot, so that the entry it replaces is
// not kept either.
func (c *raftLogCache) StoreLogs(logs []*raft.Log) error {
	if err := c.store.StoreLogs(logs); err != nil {
		return fmt.Errorf("store raft logs: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, l := range logs {
		slot := &c.ring[l.Index%uint64(len(c.ring))]
		if len(l.Data)+len(l.Extensions) > c.maxEntryBytes {
			*slot = nil
			continue
		}
		*slot = l
	}
	return nil
}

func (c *raftLogCache) FirstIndex() (uint64, error) { return c.store.FirstIndex() }

func (c *raftLogCache) LastIndex() (uint64, error) { return c.store.LastIndex() }

// DeleteRange empties the cache, then deletes from the store: raft
// deletes to compact the log or to drop entries a new leader overrode.
func (c *raftLogCache) DeleteRange(lo, hi uint64) error {
	c.mu.Lock()
	clear(c.ring)
	c.mu.Unlock()
	return c.store.DeleteRange(lo, hi)
}

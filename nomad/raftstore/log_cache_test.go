package raftstore

import (
	"bytes"
	"slices"
	"testing"

	"github.com/hashicorp/raft"
	"github.com/shoenig/test/must"
)

// readCountingStore counts the reads that reach the store behind the cache.
type readCountingStore struct {
	*raft.InmemStore
	reads int
}

func (s *readCountingStore) GetLog(index uint64, log *raft.Log) error {
	s.reads++
	return s.InmemStore.GetLog(index, log)
}

func TestRaftLogCache_keepsSmallEntriesOnly(t *testing.T) {
	store := &readCountingStore{InmemStore: raft.NewInmemStore()}
	cache, err := NewLogCache(store, 4, 100, 1<<10)
	must.NoError(t, err)

	small := &raft.Log{Index: 1, Term: 1, Data: bytes.Repeat([]byte("s"), 100)}
	large := &raft.Log{Index: 2, Term: 1, Data: bytes.Repeat([]byte("l"), 101)}
	must.NoError(t, cache.StoreLogs([]*raft.Log{small, large}))

	var got raft.Log
	must.NoError(t, cache.GetLog(1, &got))
	must.Eq(t, small.Data, got.Data)
	must.Eq(t, 0, store.reads, must.Sprint("an entry within the bound is served from memory"))

	must.NoError(t, cache.GetLog(2, &got))
	must.Eq(t, large.Data, got.Data)
	must.Eq(t, 1, store.reads, must.Sprint("an entry over the bound is read from the store"))
}

func TestRaftLogCache_largeEntryFreesTheSlotItTakes(t *testing.T) {
	store := &readCountingStore{InmemStore: raft.NewInmemStore()}
	cache, err := NewLogCache(store, 2, 10, 100)
	must.NoError(t, err)

	must.NoError(t, cache.StoreLog(&raft.Log{Index: 1, Data: []byte("one")}))
	must.NoError(t, cache.StoreLog(&raft.Log{Index: 3, Data: bytes.Repeat([]byte("x"), 11)}))
	for _, slot := range cache.ring {
		if slot != nil {
			must.NotEq(t, 1, slot.Index, must.Sprint("entry 1 shares its slot with entry 3 and must not outlive it"))
		}
	}
	var got raft.Log
	must.NoError(t, cache.GetLog(1, &got))
	must.Eq(t, []byte("one"), got.Data)
	must.Eq(t, 1, store.reads)
}

func TestRaftLogCache_deleteRangeEmptiesTheCache(t *testing.T) {
	store := &readCountingStore{InmemStore: raft.NewInmemStore()}
	cache, err := NewLogCache(store, 8, 1<<10, 1<<10)
	must.NoError(t, err)
	must.NoError(t, cache.StoreLogs([]*raft.Log{{Index: 1, Data: []byte("a")}, {Index: 2, Data: []byte("b")}}))

	must.NoError(t, cache.DeleteRange(2, 2))
	var got raft.Log
	must.Error(t, cache.GetLog(2, &got), must.Sprint("a deleted entry is not served from memory"))
	must.NoError(t, cache.GetLog(1, &got))
	must.Eq(t, []byte("a"), got.Data)
	must.Eq(t, 2, store.reads)

	first, err := cache.FirstIndex()
	must.NoError(t, err)
	last, err := cache.LastIndex()
	must.NoError(t, err)
	must.Eq(t, 1, first)
	must.Eq(t, 1, last)
}

func TestRaftLogCache_refusesAnEmptyBound(t *testing.T) {
	_, err := NewLogCache(raft.NewInmemStore(), 0, 10, 10)
	must.ErrorContains(t, err, "capacity (0)")
	_, err = NewLogCache(raft.NewInmemStore(), 10, 0, 10)
	must.ErrorContains(t, err, "entry size bound (0)")
	_, err = NewLogCache(raft.NewInmemStore(), 10, 10, 9)
	must.ErrorContains(t, err, "less than that of one")
}

// cachedIndexes are the indexes of the entries the cache holds, with their
// size in all.
func cachedIndexes(c *LogCache) (indexes []uint64, size int) {
	for _, l := range c.ring {
		if l != nil {
			indexes = append(indexes, l.Index)
			size += len(l.Data)
		}
	}
	slices.Sort(indexes)
	return indexes, size
}

func TestRaftLogCache_dropsTheOldestBeyondItsByteBound(t *testing.T) {
	store := &readCountingStore{InmemStore: raft.NewInmemStore()}
	cache, err := NewLogCache(store, 8, 40, 100)
	must.NoError(t, err)
	entry := func(index uint64, size int) *raft.Log {
		return &raft.Log{Index: index, Term: 1, Data: bytes.Repeat([]byte("e"), size)}
	}
	must.NoError(t, cache.StoreLogs([]*raft.Log{entry(1, 30), entry(2, 30), entry(3, 30)}))
	indexes, size := cachedIndexes(cache)
	must.Eq(t, []uint64{1, 2, 3}, indexes)
	must.Eq(t, 90, size)

	// 40 more bytes, 130 in all: the oldest goes, and the rest fit.
	must.NoError(t, cache.StoreLog(entry(4, 40)))
	indexes, size = cachedIndexes(cache)
	must.Eq(t, []uint64{2, 3, 4}, indexes)
	must.Eq(t, 100, size)
	must.Eq(t, size, cache.held)

	var got raft.Log
	must.NoError(t, cache.GetLog(1, &got))
	must.Eq(t, 1, store.reads, must.Sprint("a dropped entry is read from the store"))
	must.NoError(t, cache.GetLog(4, &got))
	must.Eq(t, 1, store.reads)

	// Around the ring, each entry replacing the one of its slot, the
	// bound still holds and the newest stay.
	for i := uint64(5); i <= 30; i++ {
		must.NoError(t, cache.StoreLog(entry(i, 10+int(i%4)*10)))
		_, size := cachedIndexes(cache)
		must.LessEq(t, 100, size)
		must.Eq(t, size, cache.held)
		must.NoError(t, cache.GetLog(i, &got))
	}
	must.Eq(t, 1, store.reads)
	indexes, _ = cachedIndexes(cache)
	must.Eq(t, uint64(30), indexes[len(indexes)-1])
	must.True(t, slices.IsSorted(indexes) && indexes[0] == 30-uint64(len(indexes)-1),
		must.Sprintf("the newest entries stay, without gaps: %v", indexes))
}

func TestRaftLogCache_startsAfreshAfterDeleteRange(t *testing.T) {
	cache, err := NewLogCache(raft.NewInmemStore(), 4, 50, 100)
	must.NoError(t, err)
	must.NoError(t, cache.StoreLogs([]*raft.Log{{Index: 10, Data: make([]byte, 50)}, {Index: 11, Data: make([]byte, 50)}}))
	must.NoError(t, cache.DeleteRange(10, 11))
	must.Eq(t, 0, cache.held)
	// A new leader's entries may take lower indexes again.
	must.NoError(t, cache.StoreLogs([]*raft.Log{{Index: 5, Data: make([]byte, 50)}, {Index: 6, Data: make([]byte, 50)}, {Index: 7, Data: make([]byte, 50)}}))
	indexes, size := cachedIndexes(cache)
	must.Eq(t, []uint64{6, 7}, indexes)
	must.Eq(t, 100, size)
}

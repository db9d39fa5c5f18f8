package nomad

import (
	"bytes"
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
	cache, err := newRaftLogCache(store, 4, 100)
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
	cache, err := newRaftLogCache(store, 2, 10)
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
	cache, err := newRaftLogCache(store, 8, 1<<10)
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
	_, err := newRaftLogCache(raft.NewInmemStore(), 0, 10)
	must.ErrorContains(t, err, "capacity (0)")
	_, err = newRaftLogCache(raft.NewInmemStore(), 10, 0)
	must.ErrorContains(t, err, "entry size bound (0)")
}

package state

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/drover-io/drover/structs"
	"github.com/hashicorp/go-memdb"
	"github.com/shoenig/test/must"
)

// jobQuery reads one job and the jobs table's index.
func jobQuery(id string) QueryFn {
	return func(ws memdb.WatchSet, s *StateStore) (any, uint64, error) {
		job, err := s.JobByID(ws, structs.DefaultNamespace, id)
		if err != nil {
			return nil, 0, err
		}
		index, err := s.Index(TableJobs)
		return job, index, err
	}
}

type queryResult struct {
	resp  any
	index uint64
	err   error
}

// startQuery runs a blocking query in the background.
func startQuery(ctx context.Context, s *StateStore, minIndex uint64, query QueryFn) <-chan queryResult {
	done := make(chan queryResult, 1)
	go func() {
		resp, index, err := s.BlockingQuery(ctx, minIndex, query)
		done <- queryResult{resp, index, err}
	}()
	return done
}

func TestBlockingQuery_WakesOnlyForWatchedWrites(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore(t)
		mustUpsertJob(t, s, 10, testJob("watched"))

		done := startQuery(t.Context(), s, 10, jobQuery("watched"))
		synctest.Wait()
		mustUpsertJob(t, s, 11, testJob("unrelated"))
		must.NoError(t, s.UpsertNode(12, testNode("node-1")))
		synctest.Wait()
		select {
		case r := <-done:
			t.Fatalf("woken by an unrelated write: %+v", r)
		default:
		}

		changed := testJob("watched")
		changed.Priority = 99
		mustUpsertJob(t, s, 13, changed)
		synctest.Wait()
		select {
		case r := <-done:
			must.NoError(t, r.err)
			must.Eq(t, 13, r.index)
			must.Eq(t, 99, r.resp.(*structs.Job).Priority)
		default:
			t.Fatal("not woken by a write to the watched job")
		}
	})
}

func TestBlockingQuery_ReturnsAtOnce(t *testing.T) {
	s := newStore(t)
	mustUpsertJob(t, s, 10, testJob("watched"))
	for _, minIndex := range []uint64{0, 9} {
		resp, index, err := s.BlockingQuery(t.Context(), minIndex, jobQuery("watched"))
		must.NoError(t, err)
		must.Eq(t, 10, index)
		must.Eq(t, "watched", resp.(*structs.Job).ID)
	}
}

func TestBlockingQuery_TimesOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore(t)
		mustUpsertJob(t, s, 10, testJob("watched"))
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
		defer cancel()

		start := time.Now()
		resp, index, err := s.BlockingQuery(ctx, 10, jobQuery("watched"))
		must.NoError(t, err)
		must.Eq(t, 10, index)
		must.Eq(t, "watched", resp.(*structs.Job).ID)
		must.Eq(t, 5*time.Minute, time.Since(start))
	})
}

func TestBlockingQuery_Abandoned(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore(t)
		mustUpsertJob(t, s, 10, testJob("watched"))
		done := startQuery(t.Context(), s, 10, jobQuery("watched"))
		synctest.Wait()

		s.Abandon()
		s.Abandon() // a second call does nothing
		synctest.Wait()
		select {
		case r := <-done:
			must.ErrorIs(t, r.err, ErrAbandoned)
		default:
			t.Fatal("not woken by Abandon")
		}
	})
}

func TestAbandonCh(t *testing.T) {
	s := newStore(t)
	select {
	case <-s.AbandonCh():
		t.Fatal("a new store is not abandoned")
	default:
	}
	s.Abandon()
	select {
	case <-s.AbandonCh():
	default:
		t.Fatal("AbandonCh is not closed after Abandon")
	}
}

func TestBlockingQuery_QueryError(t *testing.T) {
	s := newStore(t)
	boom := errors.New("boom")
	_, _, err := s.BlockingQuery(t.Context(), 0, func(memdb.WatchSet, *StateStore) (any, uint64, error) {
		return nil, 0, boom
	})
	must.ErrorIs(t, err, boom)
}

// TestBlockingQuery_ReadsOnePointInTime writes between a query's reads: the
// query must neither see the write nor be able to write itself.
func TestBlockingQuery_ReadsOnePointInTime(t *testing.T) {
	s := newStore(t)
	mustUpsertJob(t, s, 10, testJob("watched"))
	resp, index, err := s.BlockingQuery(t.Context(), 0, func(ws memdb.WatchSet, view *StateStore) (any, uint64, error) {
		changed := testJob("watched")
		changed.Priority = 99
		must.NoError(t, s.UpsertJob(11, changed))
		must.ErrorContains(t, view.UpsertJob(12, testJob("other")), "read-only")

		job, err := view.JobByID(ws, structs.DefaultNamespace, "watched")
		if err != nil {
			return nil, 0, err
		}
		index, err := view.Index(TableJobs)
		return job, index, err
	})
	must.NoError(t, err)
	must.Eq(t, 10, index)
	must.Eq(t, structs.DefaultPriority, resp.(*structs.Job).Priority)
}

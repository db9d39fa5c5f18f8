package state

import (
	"context"
	"errors"

	"github.com/hashicorp/go-memdb"
)

// ErrAbandoned is returned by BlockingQuery when the store was replaced by
// a restored one while the query waited. Retry on the new store.
var ErrAbandoned = errors.New("state store abandoned")

// QueryFn reads the store for a blocking query: it adds what it reads to
// ws and returns its result with the raft index it reflects, usually the
// Index of the tables it read.
type QueryFn func(ws memdb.WatchSet, s *StateStore) (resp any, index uint64, err error)

// BlockingQuery runs query and returns its result once the result's index
// is above minIndex. Until then it waits for a write to anything the query
// watched, runs it again, and so on; when ctx ends (the request's wait has
// elapsed) it returns the latest result without error. A minIndex of 0
// never waits.
//
// Each run reads one read-only, point-in-time view of the store, so the
// index and the data a query reads agree whatever order it reads them in.
func (s *StateStore) BlockingQuery(ctx context.Context, minIndex uint64, query QueryFn) (resp any, index uint64, err error) {
	for {
		ws := memdb.NewWatchSet()
		ws.Add(s.AbandonCh())
		resp, index, err = query(ws, s.view())
		if err != nil {
			return nil, 0, err
		}
		if minIndex == 0 || index > minIndex {
			return resp, index, nil
		}
		if ws.WatchCtx(ctx) != nil {
			return resp, index, nil
		}
		select {
		case <-s.AbandonCh():
			return nil, 0, ErrAbandoned
		default:
		}
	}
}

package state

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"
	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/drover-io/drover/internal/waitfor"
)

func openTestBolt(t *testing.T) *bolt.DB {
	t.Helper()
	db, err := bolt.Open(filepath.Join(t.TempDir(), "test.db"), 0o600, nil)
	must.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	must.NoError(t, db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucket([]byte("b"))
		return err
	}))
	return db
}

func put(key string, txIDs chan<- int) func(*bolt.Tx) error {
	return func(tx *bolt.Tx) error {
		if txIDs != nil {
			txIDs <- tx.ID()
		}
		return tx.Bucket([]byte("b")).Put([]byte(key), []byte("v"))
	}
}

func get(t *testing.T, db *bolt.DB, key string) bool {
	t.Helper()
	var found bool
	must.NoError(t, db.View(func(tx *bolt.Tx) error {
		found = tx.Bucket([]byte("b")).Get([]byte(key)) != nil
		return nil
	}))
	return found
}

// Writes that arrive while a commit is under way share the next one.
func TestGroupCommit_WritesDuringACommitShareTheNext(t *testing.T) {
	db := openTestBolt(t)
	g := &groupCommit{db: db}

	inFirst, release := make(chan struct{}), make(chan struct{})
	firstDone := make(chan error, 1)
	go func() {
		firstDone <- g.update(func(tx *bolt.Tx) error {
			close(inFirst)
			<-release
			return put("first", nil)(tx)
		})
	}()
	<-inFirst

	const n = 10
	txIDs := make(chan int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { must.NoError(t, g.update(put(fmt.Sprint("k", i), txIDs))) })
	}
	waitfor.True(t, "every writer to queue behind the commit", func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		return len(g.queue) == n
	}, wait.Gap(time.Millisecond))
	close(release)
	must.NoError(t, <-firstDone)
	wg.Wait()
	close(txIDs)

	ids := map[int]bool{}
	for id := range txIDs {
		ids[id] = true
	}
	must.MapLen(t, 1, ids, must.Sprint("the ten queued writes share one transaction"))
	for i := range n {
		must.True(t, get(t, db, fmt.Sprint("k", i)))
	}
	must.True(t, get(t, db, "first"))
	// The last leader lets go just after it reported the commit.
	waitfor.True(t, "nobody to lead once the queue is empty", func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		return !g.leading
	}, wait.Gap(time.Millisecond))
}

// A write that fails fails alone; the others of its batch are committed.
func TestGroupCommit_FailingWriteFailsAlone(t *testing.T) {
	db := openTestBolt(t)
	g := &groupCommit{db: db}
	boom := errors.New("boom")
	g.commit([]*groupWrite{
		{fn: put("a", nil), done: make(chan error, 1)},
		{fn: func(*bolt.Tx) error { return boom }, done: make(chan error, 1)},
		{fn: put("c", nil), done: make(chan error, 1)},
	})
	must.True(t, get(t, db, "a"))
	must.True(t, get(t, db, "c"))

	batch := []*groupWrite{
		{fn: put("d", nil), done: make(chan error, 1)},
		{fn: func(*bolt.Tx) error { return boom }, done: make(chan error, 1)},
	}
	g.commit(batch)
	must.NoError(t, <-batch[0].done)
	must.ErrorIs(t, <-batch[1].done, boom)
	must.True(t, get(t, db, "d"))
}

// A lone write commits at once and returns its own error.
func TestGroupCommit_LoneWrite(t *testing.T) {
	db := openTestBolt(t)
	g := &groupCommit{db: db}
	must.NoError(t, g.update(put("x", nil)))
	must.True(t, get(t, db, "x"))
	must.ErrorIs(t, g.update(func(*bolt.Tx) error { return bolterrors.ErrBucketNotFound }), bolterrors.ErrBucketNotFound)
	g.mu.Lock()
	defer g.mu.Unlock()
	must.False(t, g.leading, must.Sprint("a lone writer leads and lets go itself"))
}

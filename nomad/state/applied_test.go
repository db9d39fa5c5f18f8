package state

import (
	"bytes"
	"testing"
	"time"

	"github.com/hashicorp/go-memdb"
	"github.com/shoenig/test/must"
)

// TestAppliedIndex holds the applied index apart from the tables' indexes:
// it answers the latest table index until an entry is recorded, never goes
// back, is not a table's index, survives a snapshot, and wakes a watcher
// when it moves.
func TestAppliedIndex(t *testing.T) {
	s := newStore(t)
	mustUpsertJob(t, s, 5, testJob("web"))
	applied, err := s.AppliedIndex(nil)
	must.NoError(t, err)
	must.Eq(t, 5, applied, must.Sprint("no entry recorded yet: the latest table index"))

	must.NoError(t, s.SetAppliedIndex(7)) // an entry that wrote nothing
	must.NoError(t, s.SetAppliedIndex(6))
	applied, err = s.AppliedIndex(nil)
	must.NoError(t, err)
	must.Eq(t, 7, applied)
	latest, err := s.LatestIndex()
	must.NoError(t, err)
	must.Eq(t, 5, latest, must.Sprint("the applied index is not a table's"))

	snap, err := s.Snapshot()
	must.NoError(t, err)
	var buf bytes.Buffer
	must.NoError(t, snap.Persist(&buf))
	restored, err := Restore(&buf)
	must.NoError(t, err)
	applied, err = restored.AppliedIndex(nil)
	must.NoError(t, err)
	must.Eq(t, 7, applied)

	ws := memdb.NewWatchSet()
	_, err = restored.AppliedIndex(ws)
	must.NoError(t, err)
	must.NoError(t, restored.SetAppliedIndex(8))
	// The write came first, so a watch that works returns at once.
	must.False(t, ws.Watch(time.After(10*time.Second)), must.Sprint("the watch fires when the applied index moves"))
}

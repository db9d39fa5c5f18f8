package state

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/hashicorp/go-memdb"
	"github.com/shoenig/test/must"
)

// TestAppliedIndex holds the applied index apart from the tables' indexes:
// it is 0 until an entry is recorded, whatever the tables hold (an entry
// may have written one table and not yet the next), never goes back, is
// not a table's index, survives a snapshot, and wakes a watcher when it
// moves.
func TestAppliedIndex(t *testing.T) {
	s := newStore(t)
	mustUpsertJob(t, s, 5, testJob("web"))
	applied, err := s.AppliedIndex(nil)
	must.NoError(t, err)
	must.Eq(t, 0, applied, must.Sprint("no entry recorded yet"))

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

// TestAppliedIndex_restoredFromOlderSnapshot: a snapshot taken before the
// applied index was recorded restores with its latest table index as the
// applied index, since a snapshot holds whole entries.
func TestAppliedIndex_restoredFromOlderSnapshot(t *testing.T) {
	data, err := os.ReadFile("testdata/snapshot_with_max_run_deadline.jsonl")
	must.NoError(t, err)
	must.StrNotContains(t, string(data), appliedKey)
	restored, err := Restore(bytes.NewReader(data))
	must.NoError(t, err)
	applied, err := restored.AppliedIndex(nil)
	must.NoError(t, err)
	latest, err := restored.LatestIndex()
	must.NoError(t, err)
	must.Positive(t, latest)
	must.Eq(t, latest, applied)
}

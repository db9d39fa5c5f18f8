package nomad

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-memdb"
	"github.com/hashicorp/raft"

	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/nomad/maxrunstats"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/nomad/stream"
)

// FSM applies committed raft log entries to the state store and takes and
// restores its snapshots, and tells its listeners of each entry it
// applied.
type FSM struct {
	logger    hclog.Logger
	state     atomic.Pointer[state.StateStore]
	listeners atomic.Pointer[listenerSet]
	listenMu  sync.Mutex // serialises Listen's copy-on-write
}

// Applied is what the FSM tells its listeners of one entry it applied.
type Applied struct {
	Index uint64
	Entry logentry.Entry
	// Changes are the rows the entry wrote, recorded only when a
	// listener asks for them (Listener.Changes).
	Changes memdb.Changes
	// Err is set when the entry failed, after the writes Changes holds.
	Err error
}

// Listener is told of every entry the FSM applies, in log order, on the
// goroutine that applies the log: it must not block. It is the one way
// to learn what the log did (the leader's loops, the event stream, the
// max_run_duration statistics, tests).
type Listener struct {
	// Changes asks for Applied.Changes, which costs a record of every row
	// the entry writes.
	Changes bool
	// Apply is told of each entry applied, or that failed while applying.
	Apply func(Applied)
	// Restored, when set, is told the index of the state a snapshot
	// restore swapped in.
	Restored func(index uint64)
}

// listenerSet is the FSM's listeners, and whether any asks for rows.
type listenerSet struct {
	all     []Listener
	changes bool
}

// Listen adds l to the FSM's listeners.
func (f *FSM) Listen(l Listener) {
	f.listenMu.Lock()
	defer f.listenMu.Unlock()
	next := &listenerSet{changes: l.Changes}
	if cur := f.listeners.Load(); cur != nil {
		next.all = append(next.all, cur.all...)
		next.changes = next.changes || cur.changes
	}
	next.all = append(next.all, l)
	f.listeners.Store(next)
}

// currentListeners is the listener set, empty before any Listen.
func (f *FSM) currentListeners() *listenerSet {
	if ls := f.listeners.Load(); ls != nil {
		return ls
	}
	return &listenerSet{}
}

// eventListener publishes the events of each applied entry to b, and
// resets b when a snapshot replaces the state.
func eventListener(b *stream.Broker) Listener {
	return Listener{
		Changes:  true,
		Apply:    func(a Applied) { b.Publish(a.Index, logentry.Events(a.Entry, a.Changes)) },
		Restored: b.Reset,
	}
}

// maxRunListener counts the timeouts each applied entry recorded.
func maxRunListener(stats *maxrunstats.Stats) Listener {
	return Listener{Changes: true, Apply: func(a Applied) { stats.Observe(a.Changes) }}
}

var _ raft.FSM = (*FSM)(nil)

// NewFSM returns an FSM over an empty state store.
func NewFSM(logger hclog.Logger) (*FSM, error) {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	st, err := state.NewStateStore()
	if err != nil {
		return nil, err
	}
	f := &FSM{logger: logger}
	f.state.Store(st)
	return f, nil
}

// State returns the current state store. A snapshot restore replaces it, so
// hold on to it only as long as one read or one blocking query.
func (f *FSM) State() *state.StateStore {
	return f.state.Load()
}

// Apply implements raft.FSM. It returns nil or the error that kept the
// entry from being applied; an unknown or malformed entry is such an error,
// never a panic. Either way the entry is then recorded as applied, which
// reads that catch up with the leader wait for (read_index.go). The
// listeners hear of an entry that failed after some of its writes too:
// the event stream tells what the state holds.
func (f *FSM) Apply(l *raft.Log) any {
	defer f.recordApplied(l.Index)
	t, entry, err := logentry.Decode(l.Data)
	if err != nil {
		f.logger.Error("skipping raft log entry", "index", l.Index, "error", err)
		return err
	}
	ls := f.currentListeners()
	applied := f.applyEntry(entry, l.Index, ls.changes)
	if applied.Err != nil {
		f.logger.Error("apply raft log entry", "index", l.Index, "type", t, "error", applied.Err)
	}
	for _, l := range ls.all {
		l.Apply(applied)
	}
	if applied.Err != nil {
		return applied.Err
	}
	return nil
}

// applyEntry writes entry to the state, recording the rows it writes when
// a listener wants them (withChanges).
func (f *FSM) applyEntry(entry logentry.Entry, index uint64, withChanges bool) Applied {
	st := f.State()
	applied := Applied{Index: index, Entry: entry}
	if !withChanges {
		applied.Err = entry.ApplyTo(st, index)
		return applied
	}
	applied.Changes, applied.Err = st.RecordChanges(func() error { return entry.ApplyTo(st, index) })
	return applied
}

func (f *FSM) recordApplied(index uint64) {
	if err := f.State().SetAppliedIndex(index); err != nil {
		f.logger.Error("record applied raft index", "index", index, "error", err)
	}
}

// Snapshot implements raft.FSM.
func (f *FSM) Snapshot() (raft.FSMSnapshot, error) {
	snap, err := f.State().Snapshot()
	if err != nil {
		return nil, fmt.Errorf("snapshot state: %w", err)
	}
	return &fsmSnapshot{snap: snap}, nil
}

// Restore implements raft.FSM. It builds a new store from the snapshot,
// swaps it in and abandons the old one, which wakes blocking queries
// waiting on it so that they retry against the new store.
func (f *FSM) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	restored, err := state.Restore(rc)
	if err != nil {
		return fmt.Errorf("restore state snapshot: %w", err)
	}
	old := f.state.Swap(restored)
	old.Abandon()
	ls := f.currentListeners()
	if len(ls.all) == 0 {
		return nil
	}
	index, err := restored.LatestIndex()
	if err != nil {
		return fmt.Errorf("read restored state's index: %w", err)
	}
	for _, l := range ls.all {
		if l.Restored != nil {
			l.Restored(index)
		}
	}
	return nil
}

// fsmSnapshot writes a point-in-time state view to a raft snapshot sink.
type fsmSnapshot struct {
	snap *state.StateSnapshot
}

func (s *fsmSnapshot) Persist(sink raft.SnapshotSink) error {
	if err := s.snap.Persist(sink); err != nil {
		sink.Cancel()
		return fmt.Errorf("persist state snapshot: %w", err)
	}
	return sink.Close()
}

func (s *fsmSnapshot) Release() {}

package nomad

import (
	"fmt"
	"io"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/nomad/maxrunstats"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/nomad/stream"
	"github.com/drover-io/drover/structs"
)

// EvalHook is told of the pending evaluations each applied entry wrote.
type EvalHook func(evals []*structs.Evaluation)

// FSM applies committed raft log entries to the state store and takes and
// restores its snapshots.
type FSM struct {
	logger   hclog.Logger
	state    atomic.Pointer[state.StateStore]
	evalHook atomic.Pointer[EvalHook]
	observer atomic.Pointer[applyObserver]
	// events, when set, receives the events of every applied entry.
	events atomic.Pointer[stream.Broker]
	// maxRunStats, when set, counts the timeouts each applied entry
	// recorded.
	maxRunStats atomic.Pointer[maxrunstats.Stats]
}

// applyObserver is told of every entry the FSM applied, with its index, on
// the goroutine that applies the log. The leader's loops use it to learn
// what changed; it must not block.
type applyObserver func(index uint64, entry logentry.Entry)

// setApplyObserver installs fn; nil removes it.
func (f *FSM) setApplyObserver(fn applyObserver) {
	if fn == nil {
		f.observer.Store(nil)
		return
	}
	f.observer.Store(&fn)
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

// SetEvalHook installs fn to be called, on the goroutine that applies the
// log, with the pending evaluations of each entry that wrote some. fn must
// not block. nil removes the hook.
func (f *FSM) SetEvalHook(fn EvalHook) {
	if fn == nil {
		f.evalHook.Store(nil)
		return
	}
	f.evalHook.Store(&fn)
}

// setEventBroker makes the FSM publish to b the events of every entry it
// applies, and reset b when a snapshot replaces the state; nil stops it.
func (f *FSM) setEventBroker(b *stream.Broker) {
	f.events.Store(b)
}

// Apply implements raft.FSM. It returns nil or the error that kept the
// entry from being applied; an unknown or malformed entry is such an error,
// never a panic. Either way the entry is then recorded as applied, which
// reads that catch up with the leader wait for (read_index.go).
func (f *FSM) Apply(l *raft.Log) any {
	defer f.recordApplied(l.Index)
	t, entry, err := logentry.Decode(l.Data)
	if err != nil {
		f.logger.Error("skipping raft log entry", "index", l.Index, "error", err)
		return err
	}
	if err := f.applyEntry(entry, l.Index); err != nil {
		f.logger.Error("apply raft log entry", "index", l.Index, "type", t, "error", err)
		return err
	}
	f.notifyEvals(entry.WrittenEvals())
	if obs := f.observer.Load(); obs != nil {
		(*obs)(l.Index, entry)
	}
	return nil
}

// applyEntry writes entry to the state and, with an event broker, publishes
// what it changed, even when the entry failed after some of its writes:
// the stream tells what the state holds.
func (f *FSM) applyEntry(entry logentry.Entry, index uint64) error {
	st := f.State()
	broker, stats := f.events.Load(), f.maxRunStats.Load()
	if broker == nil && stats == nil {
		return entry.ApplyTo(st, index)
	}
	changes, err := st.RecordChanges(func() error { return entry.ApplyTo(st, index) })
	if broker != nil {
		broker.Publish(index, logentry.Events(entry, changes))
	}
	if stats != nil {
		stats.Observe(changes)
	}
	return err
}

func (f *FSM) recordApplied(index uint64) {
	if err := f.State().SetAppliedIndex(index); err != nil {
		f.logger.Error("record applied raft index", "index", index, "error", err)
	}
}

func (f *FSM) notifyEvals(evals []*structs.Evaluation) {
	hook := f.evalHook.Load()
	if hook == nil {
		return
	}
	var pending []*structs.Evaluation
	for _, e := range evals {
		if e.Status == structs.EvalStatusPending {
			pending = append(pending, e)
		}
	}
	if len(pending) > 0 {
		(*hook)(pending)
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
	if broker := f.events.Load(); broker != nil {
		index, err := restored.LatestIndex()
		if err != nil {
			return fmt.Errorf("read restored state's index: %w", err)
		}
		broker.Reset(index)
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

package broker

import (
	"context"
	"sync"

	"github.com/drover-io/drover/structs"
)

// BlockedEvals holds the blocked evaluations: those whose job could not
// place everything for lack of room. When capacity may have appeared (a
// node registered, became ready or eligible, an allocation stopped) it
// hands them all back to the broker to be tried again.
//
// A job keeps at most one blocked evaluation; an older one becomes a
// duplicate, which the leader cancels.
type BlockedEvals struct {
	broker *EvalBroker

	mu       sync.Mutex
	enabled  bool
	captured map[string]*structs.Evaluation
	byJob    map[jobKey]*structs.Evaluation

	// duplicates are blocked evaluations superseded by a newer one.
	duplicates []*structs.Evaluation

	// unblockIndex is the index of the latest capacity change. A blocked
	// evaluation whose scheduler read an older state missed it and is
	// tried again at once.
	unblockIndex uint64

	// signal asks run to hand the captured evaluations to the broker.
	signal chan struct{}
}

// BlockedStats counts the blocked evaluations.
type BlockedStats struct {
	TotalBlocked int
}

func NewBlockedEvals(broker *EvalBroker) *BlockedEvals {
	return &BlockedEvals{
		broker:   broker,
		captured: make(map[string]*structs.Evaluation),
		byJob:    make(map[jobKey]*structs.Evaluation),
		signal:   make(chan struct{}, 1),
	}
}

// SetEnabled turns the tracker on or off; off forgets everything.
func (b *BlockedEvals) SetEnabled(enabled bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.enabled = enabled
	b.captured = make(map[string]*structs.Evaluation)
	b.byJob = make(map[jobKey]*structs.Evaluation)
	b.duplicates = nil
	b.unblockIndex = 0
}

// Block captures a blocked evaluation until capacity changes. One whose
// scheduler read a state older than the latest capacity change goes back
// to the broker at once.
func (b *BlockedEvals) Block(eval *structs.Evaluation) {
	b.mu.Lock()
	if !b.enabled {
		b.mu.Unlock()
		return
	}
	key := evalJob(eval)
	if old := b.byJob[key]; old != nil && old.ID != eval.ID {
		if old.CreateIndex > eval.CreateIndex {
			b.duplicates = append(b.duplicates, eval)
			b.mu.Unlock()
			return
		}
		delete(b.captured, old.ID)
		b.duplicates = append(b.duplicates, old)
	}
	if eval.SnapshotIndex < b.unblockIndex {
		delete(b.byJob, key)
		delete(b.captured, eval.ID)
		b.mu.Unlock()
		b.broker.Enqueue(eval)
		return
	}
	b.captured[eval.ID] = eval
	b.byJob[key] = eval
	b.mu.Unlock()
}

// Untrack drops the blocked evaluation of a job created before index, as
// a duplicate: an evaluation of the job completed at index with nothing
// left to place, so it has nothing to wait for.
func (b *BlockedEvals) Untrack(namespace, jobID string, index uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	key := jobKey{namespace, jobID}
	old := b.byJob[key]
	if !b.enabled || old == nil || old.CreateIndex >= index {
		return
	}
	delete(b.byJob, key)
	delete(b.captured, old.ID)
	b.duplicates = append(b.duplicates, old)
}

// Forget drops a blocked evaluation that ended otherwise (its placements
// given up for max_pending_duration), so that no capacity change hands
// it to the broker again.
func (b *BlockedEvals) Forget(namespace, jobID, evalID string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.captured, evalID)
	key := jobKey{namespace, jobID}
	if old := b.byJob[key]; old != nil && old.ID == evalID {
		delete(b.byJob, key)
	}
}

// Unblock records a capacity change at index and wakes Run, which hands
// the blocked evaluations to the broker. It never blocks.
func (b *BlockedEvals) Unblock(index uint64) {
	b.mu.Lock()
	if !b.enabled {
		b.mu.Unlock()
		return
	}
	b.unblockIndex = max(b.unblockIndex, index)
	b.mu.Unlock()
	select {
	case b.signal <- struct{}{}:
	default:
	}
}

// Run hands the captured evaluations to the broker whenever Unblock asks,
// until ctx ends. Bursts of capacity changes collapse into one hand-over.
func (b *BlockedEvals) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.signal:
			b.release()
		}
	}
}

func (b *BlockedEvals) release() {
	b.mu.Lock()
	evals := make([]*structs.Evaluation, 0, len(b.captured))
	for _, e := range b.captured {
		evals = append(evals, e)
	}
	b.captured = make(map[string]*structs.Evaluation)
	b.byJob = make(map[jobKey]*structs.Evaluation)
	b.mu.Unlock()
	for _, e := range evals {
		b.broker.Enqueue(e)
	}
}

// Duplicates returns, and forgets, the superseded blocked evaluations.
func (b *BlockedEvals) Duplicates() []*structs.Evaluation {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := b.duplicates
	b.duplicates = nil
	return out
}

// Stats counts the captured evaluations.
func (b *BlockedEvals) Stats() BlockedStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return BlockedStats{TotalBlocked: len(b.captured)}
}

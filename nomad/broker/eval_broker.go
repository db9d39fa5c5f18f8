package broker

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/drover-io/drover/structs"
)

// failedQueue is the scheduler type under which the broker hands out the
// evaluations that reached their delivery limit, for the leader to mark
// them failed.
const failedQueue = "_failed"

var (
	// ErrDisabled: the broker runs only on the leader.
	ErrDisabled = errors.New("eval broker is disabled")

	// errNotOutstanding: an ack or nack of an evaluation the broker did
	// not hand out, or handed out again under another token since.
	errNotOutstanding = errors.New("evaluation is not outstanding")
)

// jobKey names a job across namespaces.
type jobKey struct{ namespace, id string }

func evalJob(e *structs.Evaluation) jobKey { return jobKey{e.Namespace, e.JobID} }

// Config bounds how the broker redelivers evaluations.
type Config struct {
	NackTimeout         time.Duration
	DeliveryLimit       int
	InitialNackDelay    time.Duration
	SubsequentNackDelay time.Duration
}

// EvalBroker hands pending evaluations to workers: highest priority first,
// then oldest first, and never two of one job at a time. A worker
// acknowledges an evaluation it processed; one it gives back (nack), or
// holds past the nack timeout, is delivered again after a delay, up to the
// delivery limit, after which it is handed out on the failed queue.
// Evaluations whose WaitUntil lies ahead wait until then.
//
// The broker holds the state store's own evaluations: it never modifies
// them, and neither may the workers it hands them to.
type EvalBroker struct {
	cfg Config

	mu      sync.Mutex
	enabled bool
	epoch   uint64 // bumped on every enable and disable, to void old timers

	// deliveries counts the deliveries of every evaluation the broker
	// holds, wherever it is: waiting, ready, pending or unacked.
	deliveries map[string]int

	// turns maps a job to the evaluation that holds its turn: it is
	// ready, unacked, or waiting to be delivered again.
	turns map[jobKey]string

	// pending holds the evaluations waiting for their job's turn.
	pending map[jobKey][]*structs.Evaluation

	ready     map[string]*readyHeap // by scheduler type
	unacked   map[string]*unackedEval
	requeue   map[string]*structs.Evaluation // enqueued again while unacked
	nackWaits map[string]*time.Timer         // redelivery delays after a nack

	delayed    delayHeap
	delayTimer *time.Timer

	// cancelable are evaluations made redundant by a newer one of the same
	// job; the leader marks them cancelled.
	cancelable []*structs.Evaluation

	// wake is closed and replaced whenever an evaluation becomes ready.
	wake chan struct{}
}

// unackedEval is an evaluation a worker holds.
type unackedEval struct {
	eval  *structs.Evaluation
	token string
	timer *time.Timer
}

// BrokerStats counts the evaluations the broker holds.
type BrokerStats struct {
	TotalReady   int
	TotalUnacked int
	TotalPending int // waiting for their job's turn
	TotalWaiting int // waiting for their WaitUntil or a redelivery delay
	ByScheduler  map[string]int
}

func NewEvalBroker(cfg Config) *EvalBroker {
	b := &EvalBroker{cfg: cfg}
	b.reset()
	return b
}

// reset empties the broker. The caller holds mu, or owns b.
func (b *EvalBroker) reset() {
	for _, u := range b.unacked {
		u.timer.Stop()
	}
	for _, t := range b.nackWaits {
		t.Stop()
	}
	if b.delayTimer != nil {
		b.delayTimer.Stop()
		b.delayTimer = nil
	}
	b.deliveries = make(map[string]int)
	b.turns = make(map[jobKey]string)
	b.pending = make(map[jobKey][]*structs.Evaluation)
	b.ready = make(map[string]*readyHeap)
	b.unacked = make(map[string]*unackedEval)
	b.requeue = make(map[string]*structs.Evaluation)
	b.nackWaits = make(map[string]*time.Timer)
	b.delayed = nil
	b.cancelable = nil
	if b.wake != nil {
		close(b.wake)
	}
	b.wake = make(chan struct{})
}

// SetEnabled turns the broker on (on gaining leadership) or off (on
// losing it). Turning it off drops every evaluation it holds and wakes
// the workers waiting in Dequeue.
func (b *EvalBroker) SetEnabled(enabled bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.enabled == enabled {
		return
	}
	b.enabled = enabled
	b.epoch++
	b.reset()
}

// Enabled reports whether the broker is on.
func (b *EvalBroker) Enabled() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.enabled
}

// Enqueue adds an evaluation. An evaluation the broker already holds is
// ignored, unless a worker is processing it: it is then delivered again
// once that worker acknowledges it.
func (b *EvalBroker) Enqueue(eval *structs.Evaluation) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.enabled {
		return
	}
	if _, known := b.deliveries[eval.ID]; known {
		if _, out := b.unacked[eval.ID]; out {
			b.requeue[eval.ID] = eval
		}
		return
	}
	b.deliveries[eval.ID] = 0
	if eval.WaitUntil.After(time.Now()) {
		heap.Push(&b.delayed, eval)
		b.armDelayTimer()
		return
	}
	b.takeTurn(eval)
}

// takeTurn makes eval ready if its job's turn is free, and otherwise
// leaves it pending behind the evaluation that holds the turn.
func (b *EvalBroker) takeTurn(eval *structs.Evaluation) {
	key := evalJob(eval)
	if holder, ok := b.turns[key]; ok && holder != eval.ID {
		b.pending[key] = append(b.pending[key], eval)
		return
	}
	b.turns[key] = eval.ID
	b.pushReady(eval, queueOf(eval))
}

// queueOf is the ready queue of an evaluation: its scheduler type. An
// evaluation without a known type (its job was unknown when it was
// created) goes with the service evaluations: the worker looks the type
// up, or fails the evaluation, rather than leave it in a queue no worker
// serves.
func queueOf(eval *structs.Evaluation) string {
	switch eval.Type {
	case structs.JobTypeService, structs.JobTypeBatch, structs.JobTypeSystem, structs.JobTypeSysbatch:
		return eval.Type
	}
	return structs.JobTypeService
}

func (b *EvalBroker) pushReady(eval *structs.Evaluation, queue string) {
	q, ok := b.ready[queue]
	if !ok {
		q = &readyHeap{}
		b.ready[queue] = q
	}
	heap.Push(q, eval)
	close(b.wake)
	b.wake = make(chan struct{})
}

// Dequeue waits for the best ready evaluation of one of the scheduler
// types and hands it out with a token, which Ack and Nack take. It returns
// an error when ctx ends or the broker is disabled.
func (b *EvalBroker) Dequeue(ctx context.Context, types []string) (*structs.Evaluation, string, error) {
	for {
		b.mu.Lock()
		if !b.enabled {
			b.mu.Unlock()
			return nil, "", ErrDisabled
		}
		if eval := b.popBest(types); eval != nil {
			token := b.handOut(eval)
			b.mu.Unlock()
			return eval, token, nil
		}
		wake := b.wake
		b.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, "", ctx.Err()
		case <-wake:
		}
	}
}

// popBest removes and returns the best ready evaluation of the types:
// highest priority, then oldest.
func (b *EvalBroker) popBest(types []string) *structs.Evaluation {
	var best *readyHeap
	for _, t := range types {
		q := b.ready[t]
		if q == nil || q.Len() == 0 {
			continue
		}
		if best == nil || readyBefore((*q)[0], (*best)[0]) {
			best = q
		}
	}
	if best == nil {
		return nil
	}
	return heap.Pop(best).(*structs.Evaluation)
}

// handOut records eval as held by a worker and arms its nack timeout.
func (b *EvalBroker) handOut(eval *structs.Evaluation) string {
	token := structs.GenerateUUID()
	b.deliveries[eval.ID]++
	id := eval.ID
	b.unacked[id] = &unackedEval{
		eval:  eval,
		token: token,
		timer: time.AfterFunc(b.cfg.NackTimeout, func() { _ = b.Nack(id, token) }),
	}
	return token
}

// outstanding returns the evaluation a worker holds under token.
func (b *EvalBroker) outstanding(evalID, token string) (*unackedEval, error) {
	if !b.enabled {
		return nil, ErrDisabled
	}
	u, ok := b.unacked[evalID]
	if !ok || u.token != token {
		return nil, fmt.Errorf("evaluation %s: %w", evalID, errNotOutstanding)
	}
	return u, nil
}

// Ack records that a worker processed an evaluation. The job's turn goes
// to its newest pending evaluation; the older pending ones are redundant
// (any evaluation looks at the whole job) and become cancelable.
func (b *EvalBroker) Ack(evalID, token string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	u, err := b.outstanding(evalID, token)
	if err != nil {
		return err
	}
	u.timer.Stop()
	delete(b.unacked, evalID)
	delete(b.deliveries, evalID)
	key := evalJob(u.eval)
	if b.turns[key] == evalID {
		delete(b.turns, key)
	}
	if again, ok := b.requeue[evalID]; ok {
		delete(b.requeue, evalID)
		b.deliveries[evalID] = 0
		b.pending[key] = append(b.pending[key], again)
	}
	b.passTurn(key)
	return nil
}

// passTurn makes the best pending evaluation of a job ready and marks the
// others cancelable.
func (b *EvalBroker) passTurn(key jobKey) {
	waiting := b.pending[key]
	if len(waiting) == 0 {
		return
	}
	delete(b.pending, key)
	next := waiting[0]
	for _, e := range waiting[1:] {
		if pendingBefore(e, next) {
			next = e
		}
	}
	for _, e := range waiting {
		if e != next {
			delete(b.deliveries, e.ID)
			b.cancelable = append(b.cancelable, e)
		}
	}
	b.takeTurn(next)
}

// Nack gives an evaluation back: it is delivered again after a delay, or,
// once it reached the delivery limit, handed out on the failed queue. The
// job's turn stays with it meanwhile.
func (b *EvalBroker) Nack(evalID, token string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	u, err := b.outstanding(evalID, token)
	if err != nil {
		return err
	}
	u.timer.Stop()
	delete(b.unacked, evalID)
	delete(b.requeue, evalID)
	n := b.deliveries[evalID]
	if n >= b.cfg.DeliveryLimit {
		b.pushReady(u.eval, failedQueue)
		return nil
	}
	delay := b.cfg.SubsequentNackDelay
	if n <= 1 {
		delay = b.cfg.InitialNackDelay
	}
	epoch, eval := b.epoch, u.eval
	b.nackWaits[evalID] = time.AfterFunc(delay, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.epoch != epoch || b.nackWaits[evalID] == nil {
			return
		}
		delete(b.nackWaits, evalID)
		b.pushReady(eval, queueOf(eval))
	})
	return nil
}

// PauseNackTimeout stops an evaluation's nack timeout while its worker
// waits for something outside its control (the plan applier).
func (b *EvalBroker) PauseNackTimeout(evalID, token string) error {
	return b.withNackTimer(evalID, token, func(t *time.Timer) { t.Stop() })
}

// ResumeNackTimeout restarts an evaluation's nack timeout in full.
func (b *EvalBroker) ResumeNackTimeout(evalID, token string) error {
	return b.withNackTimer(evalID, token, func(t *time.Timer) { t.Reset(b.cfg.NackTimeout) })
}

// withNackTimer runs fn, under the broker's lock, on the nack timer of
// the outstanding evaluation evalID that token names.
func (b *EvalBroker) withNackTimer(evalID, token string, fn func(*time.Timer)) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	u, err := b.outstanding(evalID, token)
	if err != nil {
		return err
	}
	fn(u.timer)
	return nil
}

// Cancelable returns, and forgets, the evaluations made redundant since the
// last call.
func (b *EvalBroker) Cancelable() []*structs.Evaluation {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := b.cancelable
	b.cancelable = nil
	return out
}

// Stats counts what the broker holds.
func (b *EvalBroker) Stats() BrokerStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := BrokerStats{
		TotalUnacked: len(b.unacked),
		TotalWaiting: b.delayed.Len() + len(b.nackWaits),
		ByScheduler:  make(map[string]int, len(b.ready)),
	}
	for t, q := range b.ready {
		st.TotalReady += q.Len()
		st.ByScheduler[t] = q.Len()
	}
	for _, p := range b.pending {
		st.TotalPending += len(p)
	}
	return st
}

// armDelayTimer sets the timer to the earliest WaitUntil. The caller holds
// mu.
func (b *EvalBroker) armDelayTimer() {
	if b.delayTimer != nil {
		b.delayTimer.Stop()
		b.delayTimer = nil
	}
	if b.delayed.Len() == 0 {
		return
	}
	epoch := b.epoch
	b.delayTimer = time.AfterFunc(time.Until(b.delayed[0].WaitUntil), func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.epoch != epoch {
			return
		}
		b.releaseDelayed()
	})
}

// releaseDelayed moves the evaluations whose WaitUntil passed on to their
// job's turn. The caller holds mu.
func (b *EvalBroker) releaseDelayed() {
	now := time.Now()
	for b.delayed.Len() > 0 && !b.delayed[0].WaitUntil.After(now) {
		b.takeTurn(heap.Pop(&b.delayed).(*structs.Evaluation))
	}
	b.armDelayTimer()
}

// readyBefore orders ready evaluations: higher priority first, then older.
func readyBefore(a, b *structs.Evaluation) bool {
	if a.Priority != b.Priority {
		return a.Priority > b.Priority
	}
	if a.CreateIndex != b.CreateIndex {
		return a.CreateIndex < b.CreateIndex
	}
	return a.ID < b.ID
}

// pendingBefore orders the evaluations pending for one job: higher
// priority first, then the newest, which saw the most recent state.
func pendingBefore(a, b *structs.Evaluation) bool {
	if a.Priority != b.Priority {
		return a.Priority > b.Priority
	}
	return a.ModifyIndex > b.ModifyIndex
}

// readyHeap is a heap of evaluations in readyBefore order.
type readyHeap []*structs.Evaluation

func (h readyHeap) Len() int           { return len(h) }
func (h readyHeap) Less(i, j int) bool { return readyBefore(h[i], h[j]) }
func (h readyHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *readyHeap) Push(x any)        { *h = append(*h, x.(*structs.Evaluation)) }
func (h *readyHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil // the backing array must not keep it alive
	*h = old[:len(old)-1]
	return e
}

// delayHeap is a heap of evaluations by WaitUntil.
type delayHeap []*structs.Evaluation

func (h delayHeap) Len() int           { return len(h) }
func (h delayHeap) Less(i, j int) bool { return h[i].WaitUntil.Before(h[j].WaitUntil) }
func (h delayHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *delayHeap) Push(x any)        { *h = append(*h, x.(*structs.Evaluation)) }
func (h *delayHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil // the backing array must not keep it alive
	*h = old[:len(old)-1]
	return e
}

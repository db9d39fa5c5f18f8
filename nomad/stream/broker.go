package stream

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Errors that end a subscription or refuse one.
var (
	// ErrIndexGone refuses a subscription that asks to resume after an
	// index whose following events the buffer no longer holds.
	ErrIndexGone = errors.New("event index no longer in the event buffer")
	// ErrBehind ends a subscription whose reader fell so far behind that
	// events it had still to read were dropped from the buffer.
	ErrBehind = errors.New("event subscriber fell behind")
	// ErrReset ends every subscription when the state is replaced by a
	// snapshot restore: the events before it no longer describe the state.
	ErrReset = errors.New("event stream reset")
	// ErrClosed ends every subscription when the broker closes.
	ErrClosed = errors.New("event broker closed")
)

// Broker holds the latest published batches of events and hands them to
// subscriptions. It is safe for concurrent use; Publish is meant for one
// goroutine, the FSM's.
//
// Publish does no subscriber's work: it installs a new immutable view of
// the buffer and leaves the new batch for the broker's dispatcher, a
// goroutine of its own (started when there is work, gone when there is
// none). The dispatcher finds, through an index of the subscriptions'
// topic filters, those that a batch concerns, and queues it for them
// alone: a subscription that follows one job is not woken, nor does it
// do any work, for the events of other jobs, however many there are.
type Broker struct {
	// size bounds the events held; the newest batch is held whatever its
	// size. queuedPerSize times it bounds the events queued for one
	// subscription.
	size int

	mu   sync.Mutex // serialises the writers: Publish, Reset, Close
	held int        // events in the view's batches
	view atomic.Pointer[view]
	// work is what the writers left for the dispatcher (under mu).
	work dispatchWork
	// seq counts the writes; dispatchedSeq is the seq of the last one
	// dispatched: a reader can tell a dispatch is due without a lock.
	seq, dispatchedSeq atomic.Uint64
	// kicked says a dispatcher run is on its way that will take the
	// current work.
	kicked atomic.Bool

	subsMu sync.Mutex // guards subs and seen, and serialises dispatches
	subs   subscriptionIndex
	// seen is a dispatch's scratch list of the subscriptions a batch
	// concerns.
	seen []*Subscription
}

// maxPending bounds the events published and not yet dispatched: past
// that the dispatcher, starved of CPU for that long, lets them go and ends
// every subscription as fallen behind, rather than hold an unbounded
// backlog. It is at least minMaxPending, and pendingPerSize times the
// buffer's size.
const (
	minMaxPending  = 4096
	pendingPerSize = 16
)

func (b *Broker) maxPending() int { return max(minMaxPending, pendingPerSize*b.size) }

// queuedPerSize bounds the events queued for one subscription, in buffer
// sizes: a reader that keeps up but reads in bursts (an HTTP stream
// writes at most every few tens of milliseconds) does not fall behind
// when the buffer turns over faster than that, while one that stopped
// reading holds a few buffers' worth of shared batches at most.
const queuedPerSize = 4

func (b *Broker) maxQueued() int { return queuedPerSize * b.size }

// dispatchWork is what the writers left for the dispatcher.
type dispatchWork struct {
	batches []*Batch
	events  int
	// reset, closed or overflowed end every subscription there was
	// before the batches.
	reset, closed, overflowed bool
}

// view is the buffer as one Publish (or Reset, or Close) left it. It is
// never modified: the next one replaces it.
type view struct {
	batches []*Batch // oldest first, by increasing index
	// floor is the index after which every event is held or still to
	// come: the index of the newest dropped batch, or of the state the
	// broker started from.
	floor uint64
	// last is the index of the newest batch published, or floor.
	last   uint64
	closed bool
}

// NewBroker returns a broker that holds up to size events (at least the
// newest batch). Events with an index after floor are the ones it can
// serve: floor is the index of the state the server starts from.
func NewBroker(size int, floor uint64) *Broker {
	b := &Broker{size: max(size, 1), subs: newSubscriptionIndex()}
	b.view.Store(&view{floor: floor, last: floor})
	return b
}

// Publish adds the events of the raft entry at index, which sets their
// Index, and drops the oldest batches beyond the buffer's size. It never
// waits for a subscriber, nor does their work. An index not above the last
// one published (which raft never applies) and an empty batch are ignored.
func (b *Broker) Publish(index uint64, events []*Event) {
	if len(events) == 0 {
		return
	}
	for _, e := range events {
		e.Index = index
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	old := b.view.Load()
	if old.closed || index <= old.last {
		return
	}
	batch := &Batch{Index: index, Events: events, Published: time.Now()}
	next := *old
	// Appending may write into the backing array the old view shares,
	// but only past its length, which its readers never look at; the
	// dropped batches before the new view's start are released when the
	// array is next reallocated.
	next.batches = append(old.batches, batch)
	next.last = index
	b.held += len(events)
	for b.held > b.size && len(next.batches) > 1 {
		oldest := next.batches[0]
		next.batches = next.batches[1:]
		b.held -= len(oldest.Events)
		next.floor = oldest.Index
	}
	b.view.Store(&next)
	b.work.batches = append(b.work.batches, batch)
	b.work.events += len(events)
	if b.work.events > b.maxPending() && len(b.work.batches) > 1 {
		b.work.batches, b.work.events, b.work.overflowed = nil, 0, true
	}
	b.kick()
}

// Reset empties the buffer after the state was replaced by a snapshot
// restore at index, and ends every subscription with ErrReset: what they
// read described a state that is gone. Later subscriptions start after
// index (or after the last published index, if that is later).
func (b *Broker) Reset(index uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	old := b.view.Load()
	floor := max(index, old.last)
	b.held = 0
	b.view.Store(&view{floor: floor, last: floor, closed: old.closed})
	b.work = dispatchWork{reset: true, closed: b.work.closed}
	b.kick()
}

// Close ends every subscription with ErrClosed and stops taking events.
func (b *Broker) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	next := *b.view.Load()
	next.closed = true
	b.view.Store(&next)
	b.work = dispatchWork{closed: true}
	b.kick()
}

// kick has the dispatcher take the work (under mu).
func (b *Broker) kick() {
	b.seq.Add(1)
	if b.kicked.CompareAndSwap(false, true) {
		go b.dispatch()
	}
}

// dispatch is a run of the dispatcher. A write after it cleared kicked
// starts a run of its own, which takes what this one did not.
func (b *Broker) dispatch() {
	b.subsMu.Lock()
	defer b.subsMu.Unlock()
	b.kicked.Store(false)
	b.dispatchLocked()
}

// dispatchLocked takes the writers' work and queues each batch for the
// subscriptions it concerns, after ending them all if the broker was
// reset or closed, or if the backlog overflowed, meanwhile. It returns the
// view as of the work it took: every batch in it is dispatched.
func (b *Broker) dispatchLocked() *view {
	b.mu.Lock()
	work, seq, v := b.work, b.seq.Load(), b.view.Load()
	b.work = dispatchWork{closed: work.closed}
	b.mu.Unlock()
	switch {
	case work.closed:
		b.endAllLocked(ErrClosed)
	case work.reset:
		b.endAllLocked(fmt.Errorf("%w: the server's state was restored from a snapshot; read it again and subscribe anew", ErrReset))
	case work.overflowed:
		b.endAllLocked(fmt.Errorf("%w: the server published events faster than it could hand them out, past %d events", ErrBehind, b.maxPending()))
	}
	for _, batch := range work.batches {
		b.seen = b.subs.concerned(batch, b.seen[:0])
		for _, sub := range b.seen {
			if matched := sub.filter.apply(batch); matched != nil {
				sub.queue(matched)
			}
		}
		clear(b.seen)
	}
	b.dispatchedSeq.Store(seq)
	return v
}

// endAllLocked ends every subscription with err.
func (b *Broker) endAllLocked(err error) {
	for _, sub := range b.subs.all() {
		sub.end(err)
		b.subs.remove(sub)
	}
}

// catchUp dispatches, on the caller's goroutine, what was written and not
// yet dispatched, so that a reader learns at once of every write made
// before it asked.
func (b *Broker) catchUp() {
	if b.dispatchedSeq.Load() == b.seq.Load() {
		return
	}
	b.subsMu.Lock()
	defer b.subsMu.Unlock()
	b.dispatchLocked()
}

// Stats is what the buffer holds.
type Stats struct {
	Batches, Events int
	// Floor is the index after which every event is held or still to
	// come; Last the index of the newest batch.
	Floor, Last uint64
}

// Stats reports what the buffer holds.
func (b *Broker) Stats() Stats {
	v := b.view.Load()
	held := 0
	for _, batch := range v.batches {
		held += len(batch.Events)
	}
	return Stats{Batches: len(v.batches), Events: held, Floor: v.floor, Last: v.last}
}

// SubscribeRequest is what a subscriber asks for.
type SubscribeRequest struct {
	// Topics maps a topic (or TopicAll) to the keys it selects: an
	// event's Key or one of its FilterKeys, or Wildcard for all. No keys
	// for a topic selects all of them; an empty map selects every event.
	Topics map[Topic][]string
	// Namespace selects the events of one namespace; empty or "*" selects
	// every namespace. Events of no namespace always pass.
	Namespace string
	// Index resumes after that raft index: only later events are sent.
	// Zero sends every event the buffer holds, then the new ones.
	Index uint64
	// Allow, when set, decides for each event whether the subscriber may
	// see it, such as by its ACL token's capabilities. It is called on
	// the broker's dispatcher goroutine.
	Allow func(*Event) bool
}

// Subscribe starts a subscription, which first gets what the buffer holds
// after req.Index. It fails with ErrIndexGone when req.Index is so old that
// events after it were dropped.
func (b *Broker) Subscribe(req SubscribeRequest) (*Subscription, error) {
	b.subsMu.Lock()
	defer b.subsMu.Unlock()
	// Dispatch what came before, so that the buffer's batches are the
	// new subscription's to replay and every later one is dispatched to
	// it: none twice, none missed.
	v := b.dispatchLocked()
	if v.closed {
		return nil, ErrClosed
	}
	if req.Index > 0 && req.Index < v.floor {
		return nil, fmt.Errorf("%w: events after index %d were dropped; the buffer holds those after index %d (subscribe with index 0 for all it holds)",
			ErrIndexGone, req.Index, v.floor)
	}
	sub := &Subscription{
		broker: b,
		filter: newFilter(req),
		read:   max(req.Index, v.floor),
		wake:   make(chan struct{}, 1),
	}
	i := sort.Search(len(v.batches), func(i int) bool { return v.batches[i].Index > req.Index })
	for _, batch := range v.batches[i:] {
		if matched := sub.filter.apply(batch); matched != nil {
			sub.queue(matched)
		}
	}
	b.subs.add(sub)
	return sub, nil
}

// Subscription reads the batches that match its request, in index order.
// It is for one goroutine. Close it when done; one that is never closed
// stops costing anything once it falls behind: the broker then drops it.
type Subscription struct {
	broker *Broker
	filter filter
	// wake holds a token when the subscription may have something new
	// to read.
	wake chan struct{}

	mu sync.Mutex
	// queued are the batches dispatched to it and not yet read, oldest
	// first; queuedEvents counts their events.
	queued       []*Batch
	queuedEvents int
	// read is the index of the last batch read, or where the
	// subscription started.
	read uint64
	// err, once set, ends the subscription.
	err error

	// mark is the index of the last batch a dispatch found the
	// subscription concerned by (under the broker's subsMu).
	mark uint64
}

// queue adds a batch for the subscription to read and wakes it. One that
// has more than maxQueued events queued fell behind: it ends with
// ErrBehind, and its queue is let go.
func (s *Subscription) queue(batch *Batch) {
	s.mu.Lock()
	if s.err == nil {
		s.queued = append(s.queued, batch)
		s.queuedEvents += len(batch.Events)
		if s.queuedEvents > s.broker.maxQueued() && len(s.queued) > 1 {
			s.err = fmt.Errorf("%w: more than %d of the events it asked for (%d times the buffer's size) were waiting for it after index %d",
				ErrBehind, s.broker.maxQueued(), queuedPerSize, s.read)
			s.queued, s.queuedEvents = nil, 0
			s.broker.subs.remove(s)
		}
	}
	s.mu.Unlock()
	s.notify()
}

// end ends the subscription with err, unless it has ended already.
func (s *Subscription) end(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
		s.queued, s.queuedEvents = nil, 0
	}
	s.mu.Unlock()
	s.notify()
}

func (s *Subscription) notify() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Close ends the subscription and takes it off the broker's index. Reads
// after it fail with ErrClosed.
func (s *Subscription) Close() {
	s.broker.subsMu.Lock()
	defer s.broker.subsMu.Unlock()
	s.broker.subs.remove(s)
	s.end(fmt.Errorf("%w: the subscription was closed", ErrClosed))
}

// Next returns the next batch with events that match, holding only those
// events, waiting for one until ctx ends. It fails with ErrBehind when
// the subscription fell behind, ErrReset after a restore, ErrClosed once
// the broker or the subscription closed, or ctx's error.
func (s *Subscription) Next(ctx context.Context) (*Batch, error) {
	for {
		batch, err := s.TryNext()
		if batch != nil || err != nil {
			return batch, err
		}
		select {
		case <-s.wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// TryNext is Next without the wait: nil and no error when no batch that
// matches is ready. Every batch published before the call is ready.
func (s *Subscription) TryNext() (*Batch, error) {
	s.broker.catchUp()
	return s.pop()
}

// pop takes the oldest queued batch.
func (s *Subscription) pop() (*Batch, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	if len(s.queued) == 0 {
		return nil, nil
	}
	batch := s.queued[0]
	s.queued[0] = nil
	s.queued = s.queued[1:]
	s.queuedEvents -= len(batch.Events)
	s.read = batch.Index
	return batch, nil
}

// Wait waits until the subscription may have a batch to read, or its end
// to learn, or until ctx ends, whose error it returns. Only batches that
// match wake it.
func (s *Subscription) Wait(ctx context.Context) error {
	if s.ready() {
		return nil
	}
	select {
	case <-s.wake:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ready reports whether a read would return a batch or an error now.
func (s *Subscription) ready() bool {
	s.broker.catchUp()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err != nil || len(s.queued) > 0
}

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
// Subscriptions never lock: they read the buffer from an immutable view
// that each Publish replaces, so however many of them there are, they
// cannot hold up the FSM.
type Broker struct {
	// size bounds the events held; the newest batch is held whatever its
	// size.
	size int

	mu   sync.Mutex // serialises the writers: Publish, Reset, Close
	held int        // events in the view's batches
	view atomic.Pointer[view]
}

// view is the buffer as one Publish (or Reset, or Close) left it. It is
// never modified: the next one replaces it and closes its wake channel.
type view struct {
	batches []*Batch // oldest first, by increasing index
	// floor is the index after which every event is held or still to
	// come: the index of the newest dropped batch, or of the state the
	// broker started from.
	floor uint64
	// last is the index of the newest batch published, or floor.
	last uint64
	// gen counts resets; a subscription of an earlier generation ends.
	gen    uint64
	closed bool
	// wake is closed when the view is replaced.
	wake chan struct{}
}

// NewBroker returns a broker that holds up to size events (at least the
// newest batch). Events with an index after floor are the ones it can
// serve: floor is the index of the state the server starts from.
func NewBroker(size int, floor uint64) *Broker {
	b := &Broker{size: max(size, 1)}
	b.view.Store(&view{floor: floor, last: floor, wake: make(chan struct{})})
	return b
}

// Publish adds the events of the raft entry at index, which sets their
// Index, and drops the oldest batches beyond the buffer's size. It never
// waits for a subscriber. An index not above the last one published (which
// raft never applies) and an empty batch are ignored.
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
	next := *old
	// Appending may write into the backing array the old view shares,
	// but only past its length, which its readers never look at; the
	// dropped batches before the new view's start are released when the
	// array is next reallocated.
	next.batches = append(old.batches, &Batch{Index: index, Events: events, Published: time.Now()})
	next.last = index
	b.held += len(events)
	for b.held > b.size && len(next.batches) > 1 {
		oldest := next.batches[0]
		next.batches = next.batches[1:]
		b.held -= len(oldest.Events)
		next.floor = oldest.Index
	}
	b.replace(old, &next)
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
	b.replace(old, &view{floor: floor, last: floor, gen: old.gen + 1, closed: old.closed})
}

// Close ends every subscription with ErrClosed and stops taking events.
func (b *Broker) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	old := b.view.Load()
	next := *old
	next.closed = true
	b.replace(old, &next)
}

// replace installs next, which gets a wake channel of its own, and wakes
// the subscriptions waiting on old.
func (b *Broker) replace(old, next *view) {
	next.wake = make(chan struct{})
	b.view.Store(next)
	close(old.wake)
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
	// see it, such as by its ACL token's capabilities.
	Allow func(*Event) bool
}

// Subscribe starts a subscription. It fails with ErrIndexGone when
// req.Index is so old that events after it were dropped.
func (b *Broker) Subscribe(req SubscribeRequest) (*Subscription, error) {
	v := b.view.Load()
	if v.closed {
		return nil, ErrClosed
	}
	if req.Index > 0 && req.Index < v.floor {
		return nil, fmt.Errorf("%w: events after index %d were dropped; the buffer holds those after index %d (subscribe with index 0 for all it holds)",
			ErrIndexGone, req.Index, v.floor)
	}
	return &Subscription{
		broker: b,
		filter: newFilter(req),
		cursor: max(req.Index, v.floor),
		gen:    v.gen,
	}, nil
}

// Subscription reads the events that match its request, in index order.
// It is for one goroutine. It registers nothing with the broker: dropping
// it is enough to end it.
type Subscription struct {
	broker *Broker
	filter filter
	// cursor is the index of the last batch read.
	cursor uint64
	gen    uint64
}

// Next returns the next batch with events that match, holding only those
// events, waiting for one until ctx ends. It fails with ErrBehind when the
// events to read next were dropped, ErrReset after a restore, ErrClosed
// once the broker closed, or ctx's error.
func (s *Subscription) Next(ctx context.Context) (*Batch, error) {
	for {
		batch, wake, err := s.next()
		if batch != nil || err != nil {
			return batch, err
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// TryNext is Next without the wait: nil and no error when no batch that
// matches is ready.
func (s *Subscription) TryNext() (*Batch, error) {
	batch, _, err := s.next()
	return batch, err
}

// Wait waits until a batch after the last one the subscription read may
// be there, or until ctx ends, whose error it returns. A batch that Next
// or TryNext would then pass over (it does not match) wakes it too.
func (s *Subscription) Wait(ctx context.Context) error {
	v := s.broker.view.Load()
	if v.closed || v.gen != s.gen || v.last > s.cursor {
		return nil
	}
	select {
	case <-v.wake:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// next returns the next batch that matches, or nil and the channel that is
// closed when there may be one.
func (s *Subscription) next() (*Batch, <-chan struct{}, error) {
	for {
		v := s.broker.view.Load()
		batch, err := v.after(s.cursor, s.gen, s.broker.size)
		if batch == nil || err != nil {
			return nil, v.wake, err
		}
		s.cursor = batch.Index
		if matched := s.filter.apply(batch); matched != nil {
			return matched, nil, nil
		}
	}
}

// after returns the first batch after index for a subscription of
// generation gen, or nil when the view has none.
func (v *view) after(index, gen uint64, size int) (*Batch, error) {
	switch {
	case v.closed:
		return nil, ErrClosed
	case gen != v.gen:
		return nil, fmt.Errorf("%w: the server's state was restored from a snapshot; read it again and subscribe anew", ErrReset)
	case index < v.floor:
		return nil, fmt.Errorf("%w: events after index %d were dropped from the buffer (%d events) before it read them",
			ErrBehind, index, size)
	}
	i := sort.Search(len(v.batches), func(i int) bool { return v.batches[i].Index > index })
	if i == len(v.batches) {
		return nil, nil
	}
	return v.batches[i], nil
}

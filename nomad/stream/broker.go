package stream

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
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
type Broker struct {
	// size bounds the events held; the newest batch is held whatever its
	// size.
	size int

	mu      sync.Mutex
	batches []*Batch // oldest first, by increasing index
	held    int      // events in batches
	// floor is the index after which every event is held or still to
	// come: the index of the newest dropped batch, or of the state the
	// broker started from.
	floor uint64
	// last is the index of the newest batch published, or floor.
	last uint64
	// gen counts resets; a subscription of an earlier generation ends.
	gen    uint64
	closed bool
	// wake is closed and replaced whenever something changes that a
	// waiting subscription must look at.
	wake chan struct{}
}

// NewBroker returns a broker that holds up to size events (at least the
// newest batch). Events with an index after floor are the ones it can
// serve: floor is the index of the state the server starts from.
func NewBroker(size int, floor uint64) *Broker {
	return &Broker{size: max(size, 1), floor: floor, last: floor, wake: make(chan struct{})}
}

// Publish adds the events of the raft entry at index, which sets their
// Index, and drops the oldest batches beyond the buffer's size. It never
// blocks on a subscriber. An index not above the last one published (which
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
	if b.closed || index <= b.last {
		return
	}
	b.batches = append(b.batches, &Batch{Index: index, Events: events})
	b.held += len(events)
	b.last = index
	for b.held > b.size && len(b.batches) > 1 {
		oldest := b.batches[0]
		b.batches[0] = nil // let the dropped batch be collected
		b.batches = b.batches[1:]
		b.held -= len(oldest.Events)
		b.floor = oldest.Index
	}
	b.wakeLocked()
}

// Reset empties the buffer after the state was replaced by a snapshot
// restore at index, and ends every subscription with ErrReset: what they
// read described a state that is gone. Later subscriptions start after
// index (or after the last published index, if that is later).
func (b *Broker) Reset(index uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.gen++
	clear(b.batches)
	b.batches = nil
	b.held = 0
	b.floor = max(index, b.last)
	b.last = b.floor
	b.wakeLocked()
}

// Close ends every subscription with ErrClosed and stops taking events.
func (b *Broker) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	b.wakeLocked()
}

func (b *Broker) wakeLocked() {
	close(b.wake)
	b.wake = make(chan struct{})
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
	b.mu.Lock()
	defer b.mu.Unlock()
	return Stats{Batches: len(b.batches), Events: b.held, Floor: b.floor, Last: b.last}
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
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, ErrClosed
	}
	if req.Index > 0 && req.Index < b.floor {
		return nil, fmt.Errorf("%w: events after index %d were dropped; the buffer holds those after index %d (subscribe with index 0 for all it holds)",
			ErrIndexGone, req.Index, b.floor)
	}
	return &Subscription{
		broker: b,
		filter: newFilter(req),
		cursor: max(req.Index, b.floor),
		gen:    b.gen,
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
		batch, wake, err := s.broker.after(s.cursor, s.gen)
		if err != nil {
			return nil, err
		}
		if batch == nil {
			select {
			case <-wake:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		s.cursor = batch.Index
		if matched := s.filter.apply(batch); matched != nil {
			return matched, nil
		}
	}
}

// after returns the first batch after index for a subscription of
// generation gen, or nil and the channel that is closed when there may
// be one.
func (b *Broker) after(index, gen uint64) (*Batch, <-chan struct{}, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.closed:
		return nil, nil, ErrClosed
	case gen != b.gen:
		return nil, nil, fmt.Errorf("%w: the server's state was restored from a snapshot; read it again and subscribe anew", ErrReset)
	case index < b.floor:
		return nil, nil, fmt.Errorf("%w: events after index %d were dropped from the buffer (%d events) before it read them",
			ErrBehind, index, b.size)
	}
	i := sort.Search(len(b.batches), func(i int) bool { return b.batches[i].Index > index })
	if i == len(b.batches) {
		return nil, b.wake, nil
	}
	return b.batches[i], nil, nil
}

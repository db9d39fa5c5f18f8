package stream

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shoenig/test/must"
)

func allocEvent(id, jobID, ns string) *Event {
	return &Event{Topic: TopicAllocation, Type: TypeAllocationUpdated, Key: id, Namespace: ns, FilterKeys: []string{jobID}}
}

func jobEvent(id, ns string) *Event {
	return &Event{Topic: TopicJob, Type: TypeJobRegistered, Key: id, Namespace: ns}
}

func nodeEvent(id string) *Event {
	return &Event{Topic: TopicNode, Type: TypeNodeRegistration, Key: id}
}

// next reads one batch, failing the test if none is ready at once.
func next(t *testing.T, s *Subscription) *Batch {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	b, err := s.Next(ctx)
	must.NoError(t, err)
	return b
}

// noneReady asserts that the subscription has nothing to read now.
func noneReady(t *testing.T, s *Subscription) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b, err := s.Next(ctx)
	must.ErrorIs(t, err, context.Canceled, must.Sprintf("got batch %+v", b))
}

func keys(b *Batch) []string {
	var out []string
	for _, e := range b.Events {
		out = append(out, e.Key)
	}
	return out
}

func TestBroker_DeliversInIndexOrder(t *testing.T) {
	b := NewBroker(100, 0)
	sub, err := b.Subscribe(SubscribeRequest{})
	must.NoError(t, err)
	b.Publish(5, []*Event{jobEvent("j", "default")})
	b.Publish(7, []*Event{allocEvent("a1", "j", "default"), allocEvent("a2", "j", "default")})

	first := next(t, sub)
	must.Eq(t, 5, first.Index)
	must.Eq(t, []string{"j"}, keys(first))
	must.Eq(t, 5, first.Events[0].Index)

	second := next(t, sub)
	must.Eq(t, 7, second.Index)
	must.Eq(t, []string{"a1", "a2"}, keys(second))
	must.Eq(t, 7, second.Events[1].Index)
	noneReady(t, sub)
}

func TestBroker_Filters(t *testing.T) {
	cases := []struct {
		name string
		req  SubscribeRequest
		want [][]string
	}{
		{"everything", SubscribeRequest{Namespace: "*"}, [][]string{{"j", "a1", "n1"}, {"a2", "j2"}}},
		{"a topic", SubscribeRequest{Topics: map[Topic][]string{TopicAllocation: nil}, Namespace: "*"}, [][]string{{"a1"}, {"a2"}}},
		{"a topic's wildcard", SubscribeRequest{Topics: map[Topic][]string{TopicJob: {Wildcard}}, Namespace: "*"}, [][]string{{"j"}, {"j2"}}},
		{"a key", SubscribeRequest{Topics: map[Topic][]string{TopicAllocation: {"a2"}}, Namespace: "*"}, [][]string{{"a2"}}},
		{"a filter key", SubscribeRequest{Topics: map[Topic][]string{TopicAllocation: {"j"}}, Namespace: "*"}, [][]string{{"a1"}}},
		{"two topics", SubscribeRequest{Topics: map[Topic][]string{TopicJob: {"j"}, TopicNode: nil}, Namespace: "*"}, [][]string{{"j", "n1"}}},
		{"all topics, a key", SubscribeRequest{Topics: map[Topic][]string{TopicAll: {"j2"}}, Namespace: "*"}, [][]string{{"a2", "j2"}}},
		{"a namespace, and events of none", SubscribeRequest{Namespace: "default"}, [][]string{{"j", "a1", "n1"}}},
		{"the other namespace", SubscribeRequest{Namespace: "prod"}, [][]string{{"n1"}, {"a2", "j2"}}},
		{"allowed", SubscribeRequest{Allow: func(e *Event) bool { return e.Topic != TopicNode }}, [][]string{{"j", "a1"}, {"a2", "j2"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBroker(100, 0)
			sub, err := b.Subscribe(tc.req)
			must.NoError(t, err)
			b.Publish(1, []*Event{jobEvent("j", "default"), allocEvent("a1", "j", "default"), nodeEvent("n1")})
			b.Publish(2, []*Event{allocEvent("a2", "j2", "prod"), jobEvent("j2", "prod")})
			var got [][]string
			for range tc.want {
				got = append(got, keys(next(t, sub)))
			}
			must.Eq(t, tc.want, got)
			noneReady(t, sub)
		})
	}
}

func TestBroker_ResumeSendsOnlyLaterEvents(t *testing.T) {
	b := NewBroker(100, 0)
	for i := uint64(1); i <= 5; i++ {
		b.Publish(i*10, []*Event{jobEvent(fmt.Sprint(i), "default")})
	}
	sub, err := b.Subscribe(SubscribeRequest{Index: 30})
	must.NoError(t, err)
	must.Eq(t, 40, next(t, sub).Index)
	must.Eq(t, 50, next(t, sub).Index)
	noneReady(t, sub)

	// An index between two batches resumes at the next one.
	sub, err = b.Subscribe(SubscribeRequest{Index: 35})
	must.NoError(t, err)
	must.Eq(t, 40, next(t, sub).Index)

	// Index 0 replays all the buffer holds.
	sub, err = b.Subscribe(SubscribeRequest{})
	must.NoError(t, err)
	must.Eq(t, 10, next(t, sub).Index)
}

func TestBroker_BoundedAndIndexGone(t *testing.T) {
	b := NewBroker(3, 0)
	for i := uint64(1); i <= 5; i++ {
		b.Publish(i, []*Event{jobEvent(fmt.Sprint(i), "default")})
	}
	must.Eq(t, Stats{Batches: 3, Events: 3, Floor: 2, Last: 5}, b.Stats())

	_, err := b.Subscribe(SubscribeRequest{Index: 1})
	must.ErrorIs(t, err, ErrIndexGone)
	must.StrContains(t, err.Error(), "after index 2")

	// Resuming after the newest dropped batch loses nothing.
	sub, err := b.Subscribe(SubscribeRequest{Index: 2})
	must.NoError(t, err)
	must.Eq(t, 3, next(t, sub).Index)

	// The newest batch stays whatever its size.
	b.Publish(6, []*Event{jobEvent("a", "default"), jobEvent("b", "default"), jobEvent("c", "default"), jobEvent("d", "default")})
	must.Eq(t, Stats{Batches: 1, Events: 4, Floor: 5, Last: 6}, b.Stats())
}

func TestBroker_SlowSubscriberFallsBehindWithoutBlockingPublish(t *testing.T) {
	b := NewBroker(10, 0)
	slow, err := b.Subscribe(SubscribeRequest{})
	must.NoError(t, err)
	idle := make([]*Subscription, 100)
	for i := range idle {
		idle[i], err = b.Subscribe(SubscribeRequest{})
		must.NoError(t, err)
	}
	b.Publish(1, []*Event{jobEvent("first", "default")})
	must.Eq(t, 1, next(t, slow).Index)

	// Nobody reads while far more than the buffer is published: every
	// Publish returns, and the buffer stays bounded.
	for i := uint64(2); i <= 10_000; i++ {
		b.Publish(i, []*Event{jobEvent(fmt.Sprint(i), "default")})
	}
	must.Eq(t, 10, b.Stats().Events)

	_, err = slow.Next(context.Background())
	must.ErrorIs(t, err, ErrBehind)
	must.StrContains(t, err.Error(), "after index 1")
	_, err = idle[0].Next(context.Background())
	must.ErrorIs(t, err, ErrBehind)
}

func TestBroker_TryNext(t *testing.T) {
	b := NewBroker(10, 0)
	sub, err := b.Subscribe(SubscribeRequest{Topics: map[Topic][]string{TopicJob: nil}})
	must.NoError(t, err)
	batch, err := sub.TryNext()
	must.NoError(t, err)
	must.Nil(t, batch)

	b.Publish(1, []*Event{allocEvent("a", "j", "default")})
	b.Publish(2, []*Event{jobEvent("j", "default")})
	batch, err = sub.TryNext()
	must.NoError(t, err)
	must.Eq(t, 2, batch.Index, must.Sprint("the batch it filters out is passed over"))
	batch, err = sub.TryNext()
	must.NoError(t, err)
	must.Nil(t, batch)

	b.Close()
	_, err = sub.TryNext()
	must.ErrorIs(t, err, ErrClosed)
}

func TestSubscription_Wait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := NewBroker(10, 0)
		sub, err := b.Subscribe(SubscribeRequest{Topics: map[Topic][]string{TopicJob: nil}})
		must.NoError(t, err)
		var woke atomic.Bool
		go func() {
			if sub.Wait(context.Background()) == nil {
				woke.Store(true)
			}
		}()
		synctest.Wait()
		must.False(t, woke.Load())

		// A publish it would pass over does not wake it; one that
		// matches does.
		b.Publish(1, []*Event{allocEvent("a", "j", "default")})
		synctest.Wait()
		must.False(t, woke.Load())
		b.Publish(2, []*Event{jobEvent("j", "default")})
		synctest.Wait()
		must.True(t, woke.Load())

		// With an unread batch there is nothing to wait for; once it is
		// read, Wait waits again, until ctx ends.
		must.NoError(t, sub.Wait(context.Background()))
		batch, err := sub.TryNext()
		must.NoError(t, err)
		must.Eq(t, 2, batch.Index)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		must.ErrorIs(t, sub.Wait(ctx), context.DeadlineExceeded)
	})
}

// TestBroker_FilteredSubscriberNotBehindForOthersEvents holds that a
// subscription that follows one key does not fall behind, however many
// events of other keys go through the buffer while it waits: it missed
// none of its own.
func TestBroker_FilteredSubscriberNotBehindForOthersEvents(t *testing.T) {
	b := NewBroker(10, 0)
	watcher, err := b.Subscribe(SubscribeRequest{Topics: map[Topic][]string{TopicJob: {"mine"}, TopicAllocation: {"mine"}}})
	must.NoError(t, err)
	everything, err := b.Subscribe(SubscribeRequest{})
	must.NoError(t, err)
	for i := uint64(1); i <= 1000; i++ {
		b.Publish(i, []*Event{jobEvent(fmt.Sprint(i), "default")})
	}
	b.Publish(1001, []*Event{allocEvent("a", "mine", "default")})
	batch := next(t, watcher)
	must.Eq(t, 1001, batch.Index)
	must.Eq(t, []string{"a"}, keys(batch))
	noneReady(t, watcher)

	// One that wanted those events fell behind.
	_, err = everything.Next(context.Background())
	must.ErrorIs(t, err, ErrBehind)
}

// TestBroker_WakesOnlyConcernedSubscribers holds that a publish wakes the
// subscriptions whose filters select one of its events, by key, filter
// key, topic or all, and leaves the others asleep.
func TestBroker_WakesOnlyConcernedSubscribers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := NewBroker(100, 0)
		reqs := map[string]SubscribeRequest{
			"its key":          {Topics: map[Topic][]string{TopicAllocation: {"a"}}},
			"its job":          {Topics: map[Topic][]string{TopicAllocation: {"j"}}},
			"its topic":        {Topics: map[Topic][]string{TopicAllocation: {Wildcard}}},
			"any topic, key":   {Topics: map[Topic][]string{TopicAll: {"j"}}},
			"everything":       {},
			"another key":      {Topics: map[Topic][]string{TopicAllocation: {"b"}}},
			"another topic":    {Topics: map[Topic][]string{TopicJob: {Wildcard}}},
			"another job":      {Topics: map[Topic][]string{TopicJob: {"j"}}},
			"another ns":       {Namespace: "prod"},
			"not allowed":      {Allow: func(*Event) bool { return false }},
			"closed, its key":  {Topics: map[Topic][]string{TopicAllocation: {"a"}}},
			"closed, anything": {},
		}
		woken := map[string]*atomic.Bool{}
		for name, req := range reqs {
			sub, err := b.Subscribe(req)
			must.NoError(t, err)
			if strings.HasPrefix(name, "closed") {
				sub.Close()
				_, err := sub.TryNext()
				must.ErrorIs(t, err, ErrClosed)
				continue
			}
			woken[name] = new(atomic.Bool)
			go func() {
				if sub.Wait(context.Background()) == nil {
					woken[name].Store(true)
				}
			}()
		}
		synctest.Wait()
		b.Publish(1, []*Event{allocEvent("a", "j", "default")})
		synctest.Wait()
		var got []string
		for name, w := range woken {
			if w.Load() {
				got = append(got, name)
			}
		}
		slices.Sort(got)
		must.Eq(t, []string{"any topic, key", "everything", "its job", "its key", "its topic"}, got)
		must.Eq(t, 0, len(b.subs.all())-len(woken), must.Sprint("closed subscriptions are off the index"))
		b.Close()
	})
}

func TestBroker_NextWaitsForPublish(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := NewBroker(10, 0)
		sub, err := b.Subscribe(SubscribeRequest{Topics: map[Topic][]string{TopicAllocation: nil}})
		must.NoError(t, err)
		var got atomic.Pointer[Batch]
		go func() {
			batch, err := sub.Next(context.Background())
			if err == nil {
				got.Store(batch)
			}
		}()
		synctest.Wait()
		must.Nil(t, got.Load())

		// A batch the subscription filters out does not wake it for good.
		b.Publish(1, []*Event{jobEvent("j", "default")})
		synctest.Wait()
		must.Nil(t, got.Load())

		b.Publish(2, []*Event{allocEvent("a", "j", "default")})
		synctest.Wait()
		must.NotNil(t, got.Load())
		must.Eq(t, 2, got.Load().Index)
	})
}

func TestBroker_NextEndsWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := NewBroker(10, 0)
		sub, err := b.Subscribe(SubscribeRequest{})
		must.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		start := time.Now()
		_, err = sub.Next(ctx)
		must.ErrorIs(t, err, context.DeadlineExceeded)
		must.Eq(t, 10*time.Second, time.Since(start))
	})
}

func TestBroker_ResetAndClose(t *testing.T) {
	b := NewBroker(10, 0)
	b.Publish(3, []*Event{jobEvent("j", "default")})
	before, err := b.Subscribe(SubscribeRequest{})
	must.NoError(t, err)

	b.Reset(20)
	_, err = before.Next(context.Background())
	must.ErrorIs(t, err, ErrReset)
	must.Eq(t, Stats{Floor: 20, Last: 20}, b.Stats())

	_, err = b.Subscribe(SubscribeRequest{Index: 3})
	must.ErrorIs(t, err, ErrIndexGone)
	after, err := b.Subscribe(SubscribeRequest{})
	must.NoError(t, err)
	b.Publish(21, []*Event{jobEvent("k", "default")})
	must.Eq(t, 21, next(t, after).Index)

	b.Close()
	_, err = after.Next(context.Background())
	must.ErrorIs(t, err, ErrClosed)
	_, err = b.Subscribe(SubscribeRequest{})
	must.ErrorIs(t, err, ErrClosed)
}

func TestEvent_EncodedOnce(t *testing.T) {
	e := jobEvent("j", "default")
	calls := 0
	encode := func(e *Event) ([]byte, error) {
		calls++
		return []byte(e.Key), errors.New("boom")
	}
	for range 3 {
		out, err := e.Encoded(encode)
		must.Eq(t, "j", string(out))
		must.EqError(t, err, "boom")
	}
	must.Eq(t, 1, calls)
}

// TestBroker_BatchPublishedAt holds that a batch carries when it was
// published, which is what a consumer's lag is measured from, however
// late a subscriber reads it and whether or not its filter trims it.
func TestBroker_BatchPublishedAt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := NewBroker(10, 0)
		all, err := b.Subscribe(SubscribeRequest{})
		must.NoError(t, err)
		jobs, err := b.Subscribe(SubscribeRequest{Topics: map[Topic][]string{TopicJob: nil}})
		must.NoError(t, err)
		published := time.Now()
		b.Publish(1, []*Event{jobEvent("j", "default"), allocEvent("a", "j", "default")})
		time.Sleep(time.Minute)
		must.Eq(t, published, next(t, all).Published)
		trimmed := next(t, jobs)
		must.Len(t, 1, trimmed.Events)
		must.Eq(t, published, trimmed.Published)
	})
}

// TestBroker_DispatchBacklogBounded holds that events the dispatcher has
// not handed out yet are bounded: past the bound they are let go and the
// subscriptions end as fallen behind, while Publish goes on.
func TestBroker_DispatchBacklogBounded(t *testing.T) {
	b := NewBroker(10, 0)
	sub, err := b.Subscribe(SubscribeRequest{Topics: map[Topic][]string{TopicJob: {"nothing"}}})
	must.NoError(t, err)
	b.subsMu.Lock() // the dispatcher cannot run
	for i := uint64(1); i <= uint64(b.maxPending())+1; i++ {
		b.Publish(i, []*Event{jobEvent(fmt.Sprint(i), "default")})
	}
	must.Eq(t, 0, b.work.events, must.Sprint("the backlog was let go"))
	b.subsMu.Unlock()
	_, err = sub.Next(context.Background())
	must.ErrorIs(t, err, ErrBehind)
	must.StrContains(t, err.Error(), "faster than it could hand them out")

	// Later subscriptions are served as usual.
	after, err := b.Subscribe(SubscribeRequest{Index: b.Stats().Last})
	must.NoError(t, err)
	b.Publish(uint64(b.maxPending())+2, []*Event{jobEvent("next", "default")})
	must.Eq(t, []string{"next"}, keys(next(t, after)))
}

// TestBroker_QueueBound holds that a subscription may have up to
// queuedPerSize times the buffer's size of its events waiting, more than
// the buffer itself holds, and falls behind past that.
func TestBroker_QueueBound(t *testing.T) {
	b := NewBroker(10, 0)
	sub, err := b.Subscribe(SubscribeRequest{})
	must.NoError(t, err)
	for i := uint64(1); i <= uint64(b.maxQueued()); i++ {
		b.Publish(i, []*Event{jobEvent(fmt.Sprint(i), "default")})
	}
	must.Eq(t, 10, b.Stats().Events)
	for i := uint64(1); i <= uint64(b.maxQueued()); i++ {
		must.Eq(t, i, next(t, sub).Index)
	}
	for i := uint64(b.maxQueued()) + 1; i <= uint64(2*b.maxQueued())+1; i++ {
		b.Publish(i, []*Event{jobEvent(fmt.Sprint(i), "default")})
	}
	_, err = sub.Next(context.Background())
	must.ErrorIs(t, err, ErrBehind)
	must.StrContains(t, err.Error(), fmt.Sprintf("after index %d", b.maxQueued()))
}

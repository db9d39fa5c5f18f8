package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// sentBatches records what a batcher sends.
type sentBatches struct {
	mu      sync.Mutex
	batches [][]*structs.Allocation
	at      []time.Time
	fail    int
}

func (s *sentBatches) send(_ context.Context, allocs []*structs.Allocation) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail > 0 {
		s.fail--
		return errors.New("servers unavailable")
	}
	slices.SortFunc(allocs, func(a, b *structs.Allocation) int {
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	s.batches = append(s.batches, allocs)
	s.at = append(s.at, time.Now())
	return nil
}

func (s *sentBatches) snapshot() ([][]*structs.Allocation, []time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.batches), slices.Clone(s.at)
}

func update(id, status string) *structs.Allocation {
	return &structs.Allocation{
		ID:           id,
		ClientStatus: status,
		JobID:        "not-sent",
		TaskStates:   map[string]*structs.TaskState{"t": {State: status}},
	}
}

// runningBatcher is a batcher with a 50ms window that sends to sent,
// running until the test ends.
func runningBatcher(t *testing.T, sent *sentBatches) *updateBatcher {
	b := newUpdateBatcher(hclog.NewNullLogger(), 50*time.Millisecond, sent.send)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go b.run(ctx)
	return b
}

func TestBatcher_CoalescesPerAllocWithinWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sent := &sentBatches{}
		b := runningBatcher(t, sent)

		start := time.Now()
		b.AllocStateUpdated(update("a", structs.AllocClientStatusPending))
		time.Sleep(10 * time.Millisecond)
		b.AllocStateUpdated(update("b", structs.AllocClientStatusRunning))
		b.AllocStateUpdated(update("a", structs.AllocClientStatusRunning))
		time.Sleep(20 * time.Millisecond)
		aLater := update("a", structs.AllocClientStatusRunning)
		aLater.TaskStates["t"].State = structs.TaskStateDead
		b.AllocStateUpdated(aLater)
		synctest.Wait()
		batches, _ := sent.snapshot()
		must.SliceEmpty(t, batches, must.Sprint("sent before the window closed"))

		time.Sleep(time.Second)
		synctest.Wait()
		batches, at := sent.snapshot()
		must.Len(t, 1, batches)
		must.Eq(t, 50*time.Millisecond, at[0].Sub(start))
		got := batches[0]
		must.Len(t, 2, got)
		must.Eq(t, "a", got[0].ID)
		must.Eq(t, structs.AllocClientStatusRunning, got[0].ClientStatus)
		must.Eq(t, structs.TaskStateDead, got[0].TaskStates["t"].State, must.Sprint("the latest state of a wins"))
		must.Eq(t, "", got[0].JobID, must.Sprint("only client-owned fields travel"))
		must.Eq(t, start.Add(30*time.Millisecond).UnixNano(), got[0].ModifyTime)
		must.Eq(t, "b", got[1].ID)
		must.Eq(t, structs.AllocClientStatusRunning, got[1].ClientStatus)

		// A later change starts a new window.
		later := time.Now()
		b.AllocStateUpdated(update("b", structs.AllocClientStatusPending))
		time.Sleep(time.Second)
		synctest.Wait()
		batches, at = sent.snapshot()
		must.Len(t, 2, batches)
		must.Len(t, 1, batches[1])
		must.Eq(t, 50*time.Millisecond, at[1].Sub(later))
		must.Eq(t, structs.AllocClientStatusPending, batches[1][0].ClientStatus)
		pending, n := b.stats()
		must.Eq(t, 0, pending)
		must.Eq(t, uint64(2), n)
	})
}

func TestBatcher_RetriesKeepingNewerState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sent := &sentBatches{fail: 2}
		b := newUpdateBatcher(hclog.NewNullLogger(), 50*time.Millisecond, sent.send)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go b.run(ctx)

		b.AllocStateUpdated(update("a", structs.AllocClientStatusRunning))
		b.AllocStateUpdated(update("b", structs.AllocClientStatusRunning))
		// The first send fails at 50ms; a newer state of a arrives
		// while the batcher waits to retry.
		time.Sleep(60 * time.Millisecond)
		b.AllocStateUpdated(update("a", structs.AllocClientStatusFailed))

		time.Sleep(10 * time.Second)
		synctest.Wait()
		batches, _ := sent.snapshot()
		must.Len(t, 1, batches)
		must.Len(t, 2, batches[0])
		must.Eq(t, structs.AllocClientStatusFailed, batches[0][0].ClientStatus)
		must.Eq(t, structs.AllocClientStatusRunning, batches[0][1].ClientStatus)
	})
}

// Many allocations changing at once travel in requests that each fit
// what a server takes from a client (256 KiB without the registration
// secret), whatever their number; before, they went in one request, which
// the server refused and the client retried forever.
func TestBatcher_SplitsLargeBatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sent := &sentBatches{}
		b := runningBatcher(t, sent)

		events := make([]*structs.TaskEvent, 10)
		for i := range events {
			events[i] = &structs.TaskEvent{Type: "Terminated", DisplayMessage: strings.Repeat("exit code 1 ", 30)}
		}
		const allocs = 500
		for i := range allocs {
			a := update(fmt.Sprintf("alloc-%03d", i), structs.AllocClientStatusRunning)
			a.TaskStates["t"].Events = events
			b.AllocStateUpdated(a)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		batches, _ := sent.snapshot()
		must.Greater(t, 1, len(batches))
		ids := map[string]bool{}
		for _, batch := range batches {
			body, err := json.Marshal(batch)
			must.NoError(t, err)
			must.LessEq(t, maxUpdateBatchBytes, len(body))
			for _, a := range batch {
				ids[a.ID] = true
			}
		}
		must.MapLen(t, allocs, ids, must.Sprint("every allocation's update was sent"))
	})
}

// A batch that fails half way is sent again from where it failed.
func TestBatcher_RetriesTheRestOfASplitBatch(t *testing.T) {
	big := strings.Repeat("x", maxUpdateBatchBytes/2)
	sent := &sentBatches{}
	calls := 0
	b := newUpdateBatcher(hclog.NewNullLogger(), time.Millisecond, func(ctx context.Context, allocs []*structs.Allocation) error {
		calls++
		if calls == 2 {
			return errors.New("servers unavailable")
		}
		return sent.send(ctx, allocs)
	})
	for _, id := range []string{"a", "b", "c"} {
		a := update(id, structs.AllocClientStatusRunning)
		a.ClientDescription = big
		b.AllocStateUpdated(a)
	}
	must.Error(t, b.flush(context.Background()))
	must.NoError(t, b.flush(context.Background()))
	batches, _ := sent.snapshot()
	total := 0
	for _, batch := range batches {
		must.Len(t, 1, batch, must.Sprint("each one alone: two do not fit"))
		total += len(batch)
	}
	must.Eq(t, 3, total)
}

func TestBatcher_StopsWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sent := &sentBatches{}
		b := newUpdateBatcher(hclog.NewNullLogger(), 50*time.Millisecond, sent.send)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { b.run(ctx); close(done) }()
		b.AllocStateUpdated(update("a", structs.AllocClientStatusRunning))
		cancel()
		<-done
		// What was left is sent by an explicit flush, as Shutdown does.
		must.NoError(t, b.flush(context.Background()))
		batches, _ := sent.snapshot()
		must.Len(t, 1, batches)
	})
}

// An allocation that just ended travels at once, with whatever else is
// pending: the server should learn that its resources are free, and users
// that their work is done, without waiting out the window.
func TestBatcher_TerminalUpdateSkipsWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sent := &sentBatches{}
		b := runningBatcher(t, sent)

		b.AllocStateUpdated(update("a", structs.AllocClientStatusRunning))
		time.Sleep(10 * time.Millisecond)
		ended := time.Now()
		b.AllocStateUpdated(update("b", structs.AllocClientStatusComplete))
		synctest.Wait()

		batches, at := sent.snapshot()
		must.Len(t, 1, batches)
		must.Eq(t, ended, at[0], must.Sprint("the terminal update waited"))
		must.Len(t, 2, batches[0])
		must.Eq(t, structs.AllocClientStatusRunning, batches[0][0].ClientStatus)
		must.Eq(t, structs.AllocClientStatusComplete, batches[0][1].ClientStatus)

		// Non-terminal updates afterwards wait for a full window again.
		next := time.Now()
		b.AllocStateUpdated(update("c", structs.AllocClientStatusRunning))
		time.Sleep(time.Second)
		synctest.Wait()
		batches, at = sent.snapshot()
		must.Len(t, 2, batches)
		must.Eq(t, 50*time.Millisecond, at[1].Sub(next))
	})
}

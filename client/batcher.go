package client

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/drover-io/drover/structs"
)

// Retry pauses of a batch the servers did not take.
const (
	batchRetryMin = 100 * time.Millisecond
	batchRetryMax = 5 * time.Second
)

// updateBatcher collects the allocations' client state as alloc runners
// report it and sends it to the servers in batches: one request per
// window, carrying the latest state of each allocation that changed. An
// update that ends an allocation does not wait for the window: the servers
// should free its resources, and show it done, as soon as it is.
type updateBatcher struct {
	logger hclog.Logger
	window time.Duration
	send   func(context.Context, []*structs.Allocation) error

	mu sync.Mutex
	// pending holds the latest unsent state of each allocation.
	pending map[string]*structs.Allocation
	// sent counts the batches the servers took, for the agent's stats.
	sent uint64
	wake chan struct{}
	// urgent cuts the current window short: an allocation ended.
	urgent chan struct{}
}

func newUpdateBatcher(logger hclog.Logger, window time.Duration, send func(context.Context, []*structs.Allocation) error) *updateBatcher {
	return &updateBatcher{
		logger:  logger,
		window:  window,
		send:    send,
		pending: make(map[string]*structs.Allocation),
		wake:    make(chan struct{}, 1),
		urgent:  make(chan struct{}, 1),
	}
}

// AllocStateUpdated implements allocrunner.AllocStateHandler. Only what the
// client owns is kept: the status, its description, the task states and
// the network status,
// stamped with the time of the change.
func (b *updateBatcher) AllocStateUpdated(alloc *structs.Allocation) {
	slim := &structs.Allocation{
		ID:                alloc.ID,
		ClientStatus:      alloc.ClientStatus,
		ClientDescription: alloc.ClientDescription,
		TaskStates:        alloc.TaskStates,
		NetworkStatus:     alloc.NetworkStatus,
		DeploymentStatus:  alloc.DeploymentStatus,
		ModifyTime:        time.Now().UnixNano(),
	}
	b.mu.Lock()
	b.pending[alloc.ID] = slim
	b.mu.Unlock()
	if slim.ClientTerminalStatus() {
		signal(b.urgent)
	}
	signal(b.wake)
}

// signal leaves a token in a one-slot channel unless one is already there.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// run sends batches until ctx ends.
func (b *updateBatcher) run(ctx context.Context) {
	retry := time.Duration(0)
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.wake:
		}
		// Let the burst that woke us complete, so that it travels as
		// one request, unless an allocation ended.
		if !b.waitWindow(ctx) {
			return
		}
		if err := b.flush(ctx); err != nil {
			retry = min(max(2*retry, batchRetryMin), batchRetryMax)
			b.logger.Warn("failed to send allocation updates; retrying", "error", err, "retry_in", retry)
			b.rewake()
			if !sleepCtx(ctx, retry) {
				return
			}
			continue
		}
		retry = 0
	}
}

// maxUpdateBatchBytes bounds one request of allocation updates, as JSON:
// a server takes requests of at most 256 KiB from a client that proved no
// registration secret, and a typical allocation's update is a few KiB
// (its tasks' last ten events). An allocation larger than this travels
// alone.
const maxUpdateBatchBytes = 128 << 10

// flush sends what is pending, in requests of at most maxUpdateBatchBytes.
// On failure what was not sent goes back to pending, under any newer
// state of the same allocations.
func (b *updateBatcher) flush(ctx context.Context) error {
	b.mu.Lock()
	if len(b.pending) == 0 {
		b.mu.Unlock()
		return nil
	}
	all := make([]*structs.Allocation, 0, len(b.pending))
	for _, a := range b.pending {
		all = append(all, a)
	}
	clear(b.pending)
	b.mu.Unlock()

	batches := splitBatch(all, maxUpdateBatchBytes)
	for i, batch := range batches {
		if err := b.send(ctx, batch); err != nil {
			b.requeue(slices.Concat(batches[i:]...))
			return err
		}
		b.mu.Lock()
		b.sent++
		b.mu.Unlock()
	}
	return nil
}

// requeue puts allocs back in pending, unless a newer state of one
// arrived meanwhile.
func (b *updateBatcher) requeue(allocs []*structs.Allocation) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, a := range allocs {
		if _, newer := b.pending[a.ID]; !newer {
			b.pending[a.ID] = a
		}
	}
}

// splitBatch cuts allocs into batches whose JSON is at most max bytes
// each, but for an allocation larger than max alone.
func splitBatch(allocs []*structs.Allocation, max int) [][]*structs.Allocation {
	var out [][]*structs.Allocation
	var cur []*structs.Allocation
	size := 0
	for _, a := range allocs {
		n := jsonSize(a) + 1 // and a comma
		if len(cur) > 0 && size+n > max {
			out = append(out, cur)
			cur, size = nil, 0
		}
		cur = append(cur, a)
		size += n
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// jsonSize is the size of v encoded as JSON.
func jsonSize(v any) int {
	var c byteCounter
	_ = json.NewEncoder(&c).Encode(v) // an allocation always encodes
	return int(c)
}

// byteCounter counts what is written to it.
type byteCounter int

func (c *byteCounter) Write(p []byte) (int, error) {
	*c += byteCounter(len(p))
	return len(p), nil
}

func (b *updateBatcher) rewake() { signal(b.wake) }

// waitWindow waits out the batching window or until an allocation ends,
// reporting false when ctx ended first.
func (b *updateBatcher) waitWindow(ctx context.Context) bool {
	t := time.NewTimer(b.window)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
	case <-b.urgent:
	}
	return true
}

// stats returns the number of updates waiting and of batches sent.
func (b *updateBatcher) stats() (pending int, sent uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.pending), b.sent
}

// sleepCtx waits d, reporting false when ctx ended first.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

package nomad

import (
	"container/heap"
	"context"
	"errors"
	"sync"
	"time"

	"github.com/drover-io/drover/structs"
)

// errPlanQueueDisabled: plans are applied only on the leader.
var errPlanQueueDisabled = errors.New("plan queue is disabled")

// pendingPlan is a plan waiting for the applier, and where its outcome
// goes.
type pendingPlan struct {
	plan     *structs.Plan
	enqueued time.Time
	seq      uint64
	done     chan planOutcome // buffered: the applier never waits on it
}

type planOutcome struct {
	result *structs.PlanResult
	err    error
}

func (p *pendingPlan) respond(result *structs.PlanResult, err error) {
	p.done <- planOutcome{result: result, err: err}
}

// planQueue holds submitted plans for the single plan applier: higher
// priority first, then in submission order.
type planQueue struct {
	mu      sync.Mutex
	enabled bool
	plans   planHeap
	seq     uint64
	wake    chan struct{}
}

func newPlanQueue() *planQueue {
	return &planQueue{wake: make(chan struct{})}
}

// SetEnabled turns the queue on or off; off fails every waiting plan.
func (q *planQueue) SetEnabled(enabled bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.enabled = enabled
	if enabled {
		return
	}
	for _, p := range q.plans {
		p.respond(nil, errPlanQueueDisabled)
	}
	q.plans = nil
	close(q.wake)
	q.wake = make(chan struct{})
}

// Enqueue adds a plan; its outcome arrives on the returned plan's done.
func (q *planQueue) Enqueue(plan *structs.Plan) (*pendingPlan, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.enabled {
		return nil, errPlanQueueDisabled
	}
	q.seq++
	p := &pendingPlan{plan: plan, enqueued: time.Now(), seq: q.seq, done: make(chan planOutcome, 1)}
	heap.Push(&q.plans, p)
	close(q.wake)
	q.wake = make(chan struct{})
	return p, nil
}

// Dequeue waits for the next plan.
func (q *planQueue) Dequeue(ctx context.Context) (*pendingPlan, error) {
	for {
		q.mu.Lock()
		if !q.enabled {
			q.mu.Unlock()
			return nil, errPlanQueueDisabled
		}
		if q.plans.Len() > 0 {
			p := heap.Pop(&q.plans).(*pendingPlan)
			q.mu.Unlock()
			return p, nil
		}
		wake := q.wake
		q.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-wake:
		}
	}
}

// Len counts the waiting plans.
func (q *planQueue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.plans.Len()
}

type planHeap []*pendingPlan

func (h planHeap) Len() int { return len(h) }
func (h planHeap) Less(i, j int) bool {
	if h[i].plan.Priority != h[j].plan.Priority {
		return h[i].plan.Priority > h[j].plan.Priority
	}
	return h[i].seq < h[j].seq
}
func (h planHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *planHeap) Push(x any)   { *h = append(*h, x.(*pendingPlan)) }
func (h *planHeap) Pop() any {
	old := *h
	p := old[len(old)-1]
	old[len(old)-1] = nil // the backing array must not keep it alive
	*h = old[:len(old)-1]
	return p
}

package broker

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

// PendingPlan is a plan waiting for the applier, and where its outcome
// goes.
type PendingPlan struct {
	Plan     *structs.Plan
	Enqueued time.Time
	seq      uint64
	Done     chan PlanOutcome // buffered: the applier never waits on it
}

type PlanOutcome struct {
	Result *structs.PlanResult
	Err    error
}

func (p *PendingPlan) Respond(result *structs.PlanResult, err error) {
	p.Done <- PlanOutcome{Result: result, Err: err}
}

// PlanQueue holds submitted plans for the single plan applier: higher
// priority first, then in submission order.
type PlanQueue struct {
	mu      sync.Mutex
	enabled bool
	plans   planHeap
	seq     uint64
	wake    chan struct{}
}

func NewPlanQueue() *PlanQueue {
	return &PlanQueue{wake: make(chan struct{})}
}

// SetEnabled turns the queue on or off; off fails every waiting plan.
func (q *PlanQueue) SetEnabled(enabled bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.enabled = enabled
	if enabled {
		return
	}
	for _, p := range q.plans {
		p.Respond(nil, errPlanQueueDisabled)
	}
	q.plans = nil
	close(q.wake)
	q.wake = make(chan struct{})
}

// Enqueue adds a plan; its outcome arrives on the returned plan's done.
func (q *PlanQueue) Enqueue(plan *structs.Plan) (*PendingPlan, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.enabled {
		return nil, errPlanQueueDisabled
	}
	q.seq++
	p := &PendingPlan{Plan: plan, Enqueued: time.Now(), seq: q.seq, Done: make(chan PlanOutcome, 1)}
	heap.Push(&q.plans, p)
	close(q.wake)
	q.wake = make(chan struct{})
	return p, nil
}

// Dequeue waits for the next plan.
func (q *PlanQueue) Dequeue(ctx context.Context) (*PendingPlan, error) {
	for {
		q.mu.Lock()
		if !q.enabled {
			q.mu.Unlock()
			return nil, errPlanQueueDisabled
		}
		if q.plans.Len() > 0 {
			p := heap.Pop(&q.plans).(*PendingPlan)
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
func (q *PlanQueue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.plans.Len()
}

type planHeap []*PendingPlan

func (h planHeap) Len() int { return len(h) }
func (h planHeap) Less(i, j int) bool {
	if h[i].Plan.Priority != h[j].Plan.Priority {
		return h[i].Plan.Priority > h[j].Plan.Priority
	}
	return h[i].seq < h[j].seq
}
func (h planHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *planHeap) Push(x any)   { *h = append(*h, x.(*PendingPlan)) }
func (h *planHeap) Pop() any {
	old := *h
	p := old[len(old)-1]
	old[len(old)-1] = nil // the backing array must not keep it alive
	*h = old[:len(old)-1]
	return p
}

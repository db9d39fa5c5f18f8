package broker

import (
	"container/heap"
	"context"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// A dequeued plan is the applier's alone: the queue's backing array must
// not keep it, and the allocations it carries, alive until another plan
// happens to take its slot.
func TestPlanQueue_dequeueLetsThePlanGo(t *testing.T) {
	q := NewPlanQueue()
	q.SetEnabled(true)
	for range 2 {
		_, err := q.Enqueue(&structs.Plan{EvalID: structs.GenerateUUID()})
		must.NoError(t, err)
	}
	for range 2 {
		_, err := q.Dequeue(context.Background())
		must.NoError(t, err)
	}
	for i, p := range q.plans[:cap(q.plans)] {
		must.Nil(t, p, must.Sprintf("slot %d of the queue still holds a dequeued plan", i))
	}
}

func TestEvalHeaps_popLetsTheEvaluationGo(t *testing.T) {
	ready := &readyHeap{}
	delayed := &delayHeap{}
	for range 2 {
		heap.Push(ready, pendingEval("job"))
		heap.Push(delayed, pendingEval("job"))
	}
	for range 2 {
		heap.Pop(ready)
		heap.Pop(delayed)
	}
	for i, e := range (*ready)[:cap(*ready)] {
		must.Nil(t, e, must.Sprintf("slot %d of the ready heap", i))
	}
	for i, e := range (*delayed)[:cap(*delayed)] {
		must.Nil(t, e, must.Sprintf("slot %d of the delay heap", i))
	}
}

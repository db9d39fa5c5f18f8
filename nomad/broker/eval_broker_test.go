package broker

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

func testBroker(t *testing.T) *EvalBroker {
	b := NewEvalBroker(Config{
		NackTimeout:         5 * time.Second,
		DeliveryLimit:       3,
		InitialNackDelay:    time.Second,
		SubsequentNackDelay: 20 * time.Second,
	})
	b.SetEnabled(true)
	t.Cleanup(func() { b.SetEnabled(false) })
	return b
}

// brokerEval is a pending evaluation of a job at a priority, created at
// index.
func brokerEval(jobID string, priority int, index uint64) *structs.Evaluation {
	e := pendingEval(jobID)
	e.Priority = priority
	e.CreateIndex, e.ModifyIndex = index, index
	return e
}

// mustDequeue takes the next evaluation without waiting.
func mustDequeue(t *testing.T, b *EvalBroker) (*structs.Evaluation, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	e, token, err := b.Dequeue(ctx, allQueues)
	must.NoError(t, err)
	return e, token
}

// mustBeEmpty checks that nothing is ready.
func mustBeEmpty(t *testing.T, b *EvalBroker, types ...string) {
	t.Helper()
	if len(types) == 0 {
		types = allQueues
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	e, _, err := b.Dequeue(ctx, types)
	must.ErrorIs(t, err, context.DeadlineExceeded, must.Sprintf("got evaluation %v", e))
}

func TestEvalBroker_PriorityThenAge(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := testBroker(t)
		low := brokerEval("low", 10, 1)
		oldHigh := brokerEval("old-high", 80, 2)
		newHigh := brokerEval("new-high", 80, 3)
		service := brokerEval("svc", 50, 4)
		service.Type = structs.JobTypeService
		for _, e := range []*structs.Evaluation{low, newHigh, service, oldHigh} {
			b.Enqueue(e)
		}
		var order []string
		for range 4 {
			e, token := mustDequeue(t, b)
			order = append(order, e.JobID)
			must.NoError(t, b.Ack(e.ID, token))
		}
		must.Eq(t, []string{"old-high", "new-high", "svc", "low"}, order)
		must.Eq(t, 0, b.Stats().TotalReady)
	})
}

func TestEvalBroker_OneEvalPerJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := testBroker(t)
		first := brokerEval("job", 50, 1)
		second := brokerEval("job", 50, 2)
		third := brokerEval("job", 50, 3)
		other := brokerEval("other", 50, 4)
		b.Enqueue(first)
		b.Enqueue(second)
		b.Enqueue(third)
		b.Enqueue(other)
		b.Enqueue(first) // a duplicate is ignored

		e, token := mustDequeue(t, b)
		must.Eq(t, first.ID, e.ID)
		o, otherToken := mustDequeue(t, b)
		must.Eq(t, other.ID, o.ID, must.Sprint("the job's other evaluations wait for its turn"))
		mustBeEmpty(t, b)
		must.Eq(t, 2, b.Stats().TotalPending)

		// The newest pending evaluation takes the turn; the older one is
		// redundant.
		must.NoError(t, b.Ack(e.ID, token))
		next, nextToken := mustDequeue(t, b)
		must.Eq(t, third.ID, next.ID)
		cancelable := b.Cancelable()
		must.Len(t, 1, cancelable)
		must.Eq(t, second.ID, cancelable[0].ID)
		must.Len(t, 0, b.Cancelable())

		must.NoError(t, b.Ack(next.ID, nextToken))
		must.NoError(t, b.Ack(o.ID, otherToken))
		mustBeEmpty(t, b)
		must.ErrorIs(t, b.Ack(o.ID, otherToken), errNotOutstanding)
	})
}

func TestEvalBroker_DequeueWaitsForWork(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := testBroker(t)
		got := make(chan *structs.Evaluation, 1)
		go func() {
			e, _, err := b.Dequeue(context.Background(), []string{structs.JobTypeBatch})
			if err == nil {
				got <- e
			}
		}()
		synctest.Wait()
		must.Eq(t, 0, len(got))
		eval := brokerEval("job", 50, 1)
		b.Enqueue(eval)
		synctest.Wait()
		must.Eq(t, eval.ID, (<-got).ID)

		// Disabling the broker releases waiting workers.
		errs := make(chan error, 1)
		go func() {
			_, _, err := b.Dequeue(context.Background(), allQueues)
			errs <- err
		}()
		synctest.Wait()
		b.SetEnabled(false)
		must.ErrorIs(t, <-errs, ErrDisabled)
	})
}

func TestEvalBroker_NackRedeliversAfterDelayThenFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := testBroker(t)
		eval := brokerEval("job", 50, 1)
		later := brokerEval("job", 50, 2)
		b.Enqueue(eval)
		b.Enqueue(later)

		e, token := mustDequeue(t, b)
		must.NoError(t, b.Nack(e.ID, token))
		must.ErrorIs(t, b.Ack(e.ID, token), errNotOutstanding, must.Sprint("a nacked token is spent"))
		mustBeEmpty(t, b) // waits out the first nack delay, keeping the job's turn
		must.Eq(t, 1, b.Stats().TotalWaiting)

		time.Sleep(time.Second)
		synctest.Wait()
		e, token = mustDequeue(t, b)
		must.Eq(t, eval.ID, e.ID)
		must.NoError(t, b.Nack(e.ID, token))

		time.Sleep(19 * time.Second)
		synctest.Wait()
		mustBeEmpty(t, b) // later nacks wait longer
		time.Sleep(time.Second)
		synctest.Wait()
		e, token = mustDequeue(t, b)
		must.Eq(t, eval.ID, e.ID)

		// The third delivery was the last: a nack now hands the
		// evaluation to the failed queue, still holding the job's turn.
		must.NoError(t, b.Nack(e.ID, token))
		mustBeEmpty(t, b)
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		defer cancel()
		failed, failedToken, err := b.Dequeue(ctx, []string{failedQueue})
		must.NoError(t, err)
		must.Eq(t, eval.ID, failed.ID)
		must.NoError(t, b.Ack(failed.ID, failedToken))
		next, _ := mustDequeue(t, b)
		must.Eq(t, later.ID, next.ID)
	})
}

func TestEvalBroker_NackTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := testBroker(t)
		eval := brokerEval("job", 50, 1)
		b.Enqueue(eval)
		e, token := mustDequeue(t, b)

		// A paused timeout does not run while the worker waits for its
		// plan.
		must.NoError(t, b.PauseNackTimeout(e.ID, token))
		time.Sleep(time.Minute)
		synctest.Wait()
		must.Eq(t, 1, b.Stats().TotalUnacked)
		must.NoError(t, b.ResumeNackTimeout(e.ID, token))

		// A worker that holds it past the timeout loses it.
		time.Sleep(5 * time.Second)
		synctest.Wait()
		must.Eq(t, 0, b.Stats().TotalUnacked)
		must.ErrorIs(t, b.Ack(e.ID, token), errNotOutstanding)
		time.Sleep(time.Second)
		synctest.Wait()
		again, _ := mustDequeue(t, b)
		must.Eq(t, eval.ID, again.ID)
	})
}

func TestEvalBroker_WaitUntil(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := testBroker(t)
		eval := brokerEval("job", 50, 1)
		eval.WaitUntil = time.Now().Add(30 * time.Second)
		b.Enqueue(eval)
		mustBeEmpty(t, b)
		must.Eq(t, 1, b.Stats().TotalWaiting)

		time.Sleep(30 * time.Second)
		synctest.Wait()
		e, _ := mustDequeue(t, b)
		must.Eq(t, eval.ID, e.ID)
	})
}

func TestEvalBroker_EnqueueWhileOutstandingRunsAgainAfterAck(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := testBroker(t)
		blocked := brokerEval("job", 50, 1)
		blocked.Status = structs.EvalStatusBlocked
		b.Enqueue(blocked)
		e, token := mustDequeue(t, b)

		// Capacity changed while the scheduler ran: the blocked tracker
		// hands the same evaluation back.
		b.Enqueue(blocked)
		mustBeEmpty(t, b)
		must.NoError(t, b.Ack(e.ID, token))
		again, _ := mustDequeue(t, b)
		must.Eq(t, blocked.ID, again.ID)
	})
}

func TestEvalBroker_DisabledIgnoresEverything(t *testing.T) {
	b := NewEvalBroker(Config{NackTimeout: time.Second, DeliveryLimit: 1})
	b.Enqueue(brokerEval("job", 50, 1))
	must.Eq(t, 0, b.Stats().TotalReady)
	_, _, err := b.Dequeue(context.Background(), allQueues)
	must.ErrorIs(t, err, ErrDisabled)
	must.ErrorIs(t, b.Ack("x", "y"), ErrDisabled)
}

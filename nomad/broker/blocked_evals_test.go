package broker

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

func blockedEval(jobID string, createIndex, snapshotIndex uint64) *structs.Evaluation {
	e := brokerEval(jobID, 50, createIndex)
	e.Status = structs.EvalStatusBlocked
	e.SnapshotIndex = snapshotIndex
	return e
}

func TestBlockedEvals_UnblockHandsEvalsToBroker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := testBroker(t)
		blocked := NewBlockedEvals(b)
		blocked.SetEnabled(true)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go blocked.Run(ctx)

		eval := blockedEval("job", 10, 9)
		blocked.Block(eval)
		must.Eq(t, 1, blocked.Stats().TotalBlocked)
		mustBeEmpty(t, b)

		blocked.Unblock(12)
		synctest.Wait()
		must.Eq(t, 0, blocked.Stats().TotalBlocked)
		e, _ := mustDequeue(t, b)
		must.Eq(t, eval.ID, e.ID)
	})
}

func TestBlockedEvals_MissedCapacityChangeRunsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := testBroker(t)
		blocked := NewBlockedEvals(b)
		blocked.SetEnabled(true)
		blocked.Unblock(20)

		// Its scheduler read index 15, before the change at 20.
		stale := blockedEval("stale", 21, 15)
		blocked.Block(stale)
		must.Eq(t, 0, blocked.Stats().TotalBlocked)
		e, _ := mustDequeue(t, b)
		must.Eq(t, stale.ID, e.ID)

		fresh := blockedEval("fresh", 22, 21)
		blocked.Block(fresh)
		must.Eq(t, 1, blocked.Stats().TotalBlocked)
	})
}

func TestBlockedEvals_OnePerJob(t *testing.T) {
	b := testBroker(t)
	blocked := NewBlockedEvals(b)
	blocked.SetEnabled(true)
	older := blockedEval("job", 10, 10)
	newer := blockedEval("job", 20, 20)
	blocked.Block(older)
	blocked.Block(newer)
	blocked.Block(newer) // a reblock of the same evaluation is no duplicate
	must.Eq(t, 1, blocked.Stats().TotalBlocked)
	dups := blocked.Duplicates()
	must.Len(t, 1, dups)
	must.Eq(t, older.ID, dups[0].ID)

	// An older one arriving late is the duplicate.
	blocked.Block(older)
	dups = blocked.Duplicates()
	must.Len(t, 1, dups)
	must.Eq(t, older.ID, dups[0].ID)
	must.Eq(t, 1, blocked.Stats().TotalBlocked)

	blocked.SetEnabled(false)
	must.Eq(t, 0, blocked.Stats().TotalBlocked)
	blocked.Block(blockedEval("other", 30, 30))
	must.Eq(t, 0, blocked.Stats().TotalBlocked, must.Sprint("a follower tracks nothing"))
}

func TestBlockedEvals_UntrackWhenJobNeedsNothing(t *testing.T) {
	b := testBroker(t)
	blocked := NewBlockedEvals(b)
	blocked.SetEnabled(true)
	eval := blockedEval("job", 10, 10)
	blocked.Block(eval)

	blocked.Untrack(structs.DefaultNamespace, "job", 5)
	must.Eq(t, 1, blocked.Stats().TotalBlocked, must.Sprint("an evaluation older than the blocked one proves nothing"))
	blocked.Untrack(structs.DefaultNamespace, "other", 20)
	must.Eq(t, 1, blocked.Stats().TotalBlocked)

	blocked.Untrack(structs.DefaultNamespace, "job", 20)
	must.Eq(t, 0, blocked.Stats().TotalBlocked)
	dups := blocked.Duplicates()
	must.Len(t, 1, dups)
	must.Eq(t, eval.ID, dups[0].ID)
}

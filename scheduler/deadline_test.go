package scheduler

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// A rescheduled allocation of a job with a job-wide budget inherits what
// is left of it; once the budget is spent, the placement is given up, not
// queued.
func TestBatch_rescheduleInheritsJobBudgetThenGivesUp(t *testing.T) {
	h := newHarness(t)
	h.addNodes(3, nil)
	job := rescheduleJob()
	job.TaskGroups[0].ReschedulePolicy.Delay = 0
	job.MaxRunDuration = new(10 * time.Minute)
	job.TaskGroups[0].MaxRunDuration = new(8 * time.Minute)
	job.SubmitTime = h.now.UnixNano()
	job = h.runJob(job)
	submitted := h.now
	first := h.allocs(job)[0]
	must.Eq(t, structs.MaxRunScopeGroup, first.MaxRun().Scope)

	// It fails after 7 minutes: its replacement gets the 3 left, not a
	// fresh 8.
	h.now = submitted.Add(7 * time.Minute)
	h.setClientStatus(structs.AllocClientStatusFailed, h.now, first)
	h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))
	second := replacementOf(t, h, first)
	m := second.MaxRun()
	must.Eq(t, structs.MaxRunScopeJob, m.Scope)
	must.Eq(t, submitted.Add(10*time.Minute), m.Deadline)
	must.Eq(t, 3*time.Minute, m.Remaining(h.now))

	// It fails at the job's deadline: nothing is left to start.
	h.now = submitted.Add(10 * time.Minute)
	h.setClientStatus(structs.AllocClientStatusFailed, h.now, second)
	h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))
	must.SliceEmpty(t, h.liveAllocs(job))
	eval := h.lastUpdate()
	must.Eq(t, structs.EvalStatusComplete, eval.Status)
	must.Eq(t, structs.PlacementGiveUpReasonJobBudget, eval.StatusDescription)
	must.Eq(t, structs.PlacementGiveUpReasonJobBudget, eval.FailedTGAllocs["g"].GivenUp)
	must.Eq(t, "", eval.BlockedEval, must.Sprint("a given-up placement is not queued"))
	must.SliceEmpty(t, h.createdEvals(structs.EvalTriggerQueuedAllocs))
	must.Eq(t, map[string]int{"g": 0}, eval.QueuedAllocations)
}

func TestBatch_finishByRefusesAndCuts(t *testing.T) {
	deadlineJob := func(h *harness, count int, finishBy time.Duration, minRun *time.Duration) *structs.Job {
		job := mockJob(structs.JobTypeBatch, count)
		job.TaskGroups[0].MaxRunDuration = new(30 * time.Minute)
		job.TaskGroups[0].MinRunDuration = minRun
		job.Deadline = &structs.JobDeadline{At: h.now.Add(finishBy).UnixNano()}
		job.SubmitTime = h.now.UnixNano()
		return job
	}

	t.Run("budget ends by the deadline: placed", func(t *testing.T) {
		h := newHarness(t)
		h.addNodes(2, nil)
		job := h.runJob(deadlineJob(h, 2, 30*time.Minute, nil))
		allocs := h.allocs(job)
		must.SliceLen(t, 2, allocs)
		must.Eq(t, structs.MaxRunScopeGroup, allocs[0].MaxRun().Scope)
		must.MapEmpty(t, h.lastUpdate().FailedTGAllocs)
	})
	t.Run("budget ends after the deadline: given up", func(t *testing.T) {
		h := newHarness(t)
		h.addNodes(2, nil)
		job := h.runJob(deadlineJob(h, 3, 20*time.Minute, nil))
		must.SliceEmpty(t, h.allocs(job))
		eval := h.lastUpdate()
		want := structs.FinishByReason(h.now.Add(20 * time.Minute))
		must.Eq(t, "cannot finish by 2023-11-14T22:33:20Z", want)
		must.Eq(t, want, eval.StatusDescription)
		must.Eq(t, want, eval.FailedTGAllocs["g"].GivenUp)
		must.Eq(t, 2, eval.FailedTGAllocs["g"].CoalescedFailures)
		must.Eq(t, "", eval.BlockedEval)
		must.Eq(t, map[string]int{"g": 0}, eval.QueuedAllocations)
	})
	t.Run("min_run_duration fits: cut to the deadline", func(t *testing.T) {
		h := newHarness(t)
		h.addNodes(2, nil)
		job := h.runJob(deadlineJob(h, 2, 20*time.Minute, new(20*time.Minute)))
		allocs := h.allocs(job)
		must.SliceLen(t, 2, allocs)
		m := allocs[0].MaxRun()
		must.Eq(t, structs.MaxRunScopeDeadline, m.Scope)
		must.Eq(t, 20*time.Minute, m.Budget)
		must.Eq(t, h.now.Add(20*time.Minute), m.Deadline)
	})
	t.Run("min_run_duration does not fit: given up", func(t *testing.T) {
		h := newHarness(t)
		h.addNodes(2, nil)
		job := h.runJob(deadlineJob(h, 2, 20*time.Minute, new(21*time.Minute)))
		must.SliceEmpty(t, h.allocs(job))
		must.StrHasPrefix(t, "cannot finish by ", h.lastUpdate().FailedTGAllocs["g"].GivenUp)
	})
	t.Run("no room and no time: given up, not blocked", func(t *testing.T) {
		h := newHarness(t)
		job := h.runJob(deadlineJob(h, 1, 20*time.Minute, nil))
		eval := h.lastUpdate()
		must.Eq(t, "", eval.BlockedEval)
		must.StrHasPrefix(t, "cannot finish by ", eval.FailedTGAllocs["g"].GivenUp)
		must.SliceEmpty(t, h.allocs(job))
	})
}

func TestSysbatch_finishByGivesUp(t *testing.T) {
	h := newHarness(t)
	h.addNodes(3, nil)
	job := mockJob(structs.JobTypeSysbatch, 1)
	job.TaskGroups[0].MaxRunDuration = new(time.Hour)
	job.Deadline = &structs.JobDeadline{At: h.now.Add(time.Minute).UnixNano()}
	job.SubmitTime = h.now.UnixNano()
	job = h.runJob(job)
	must.SliceEmpty(t, h.allocs(job))
	eval := h.lastUpdate()
	must.StrHasPrefix(t, "cannot finish by ", eval.FailedTGAllocs["g"].GivenUp)
	must.Eq(t, 2, eval.FailedTGAllocs["g"].CoalescedFailures)
	must.Eq(t, "", eval.BlockedEval)
}

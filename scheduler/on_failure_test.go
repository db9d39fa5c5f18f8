package scheduler

import (
	"strings"
	"testing"
	"time"

	"github.com/drover-io/drover/structs"
	"github.com/shoenig/test/must"
)

// policyJob is a batch job of count allocations, whose failures the
// reschedule policy would replace at once, with rules.
func policyJob(count int, rules ...*structs.OnFailureRule) *structs.Job {
	job := mockJob(structs.JobTypeBatch, count)
	budget := time.Minute
	tg := job.TaskGroups[0]
	tg.MaxRunDuration = &budget
	tg.ReschedulePolicy = &structs.ReschedulePolicy{Attempts: 3, Interval: time.Hour, DelayFunction: structs.RescheduleDelayConstant}
	tg.OnFailure = rules
	return job
}

// endAlloc reports that alloc ended with status and description, its task
// terminated with code and sig.
func (h *harness) endAlloc(alloc *structs.Allocation, status, desc string, code, sig int) {
	h.t.Helper()
	update := &structs.Allocation{
		ID:                alloc.ID,
		ClientStatus:      status,
		ClientDescription: desc,
		TaskStates: map[string]*structs.TaskState{"t": {
			State:      structs.TaskStateDead,
			Failed:     status == structs.AllocClientStatusFailed,
			FinishedAt: h.now,
			Events:     []*structs.TaskEvent{{Type: structs.TaskTerminated, ExitCode: code, Signal: sig}},
		}},
		ModifyTime: h.now.UnixNano(),
	}
	must.NoError(h.t, h.store.UpdateAllocsFromClient(h.nextIndex(), []*structs.Allocation{update}))
}

func TestOnFailure_failJobStopsTheRest(t *testing.T) {
	h := newHarness(t)
	h.addNodes(3, nil)
	job := h.runJob(policyJob(2, &structs.OnFailureRule{ExitCodes: []int{3}, Action: structs.OnFailureFailJob}))
	allocs := h.allocs(job)
	must.SliceLen(t, 2, allocs)
	h.endAlloc(allocs[0], structs.AllocClientStatusFailed, "", 3, 0)
	h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))

	must.SliceEmpty(t, h.liveAllocs(job))
	must.SliceLen(t, 2, h.allocs(job), must.Sprint("nothing replaced"))
	other, err := h.store.AllocByID(nil, allocs[1].ID)
	must.NoError(t, err)
	must.Eq(t, structs.AllocDesiredStatusStop, other.DesiredStatus)
	must.StrContains(t, other.DesiredDescription, `job failed by on_failure rule 1 (fail_job) of group "g"`)
	must.StrContains(t, other.DesiredDescription, "exit code 3")
	must.StrContains(t, h.lastUpdate().StatusDescription, "on_failure rule 1 (fail_job)")

	// It stays failed: a later evaluation places nothing.
	plans := len(h.plans)
	h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
	must.SliceLen(t, plans, h.plans)
	must.SliceLen(t, 2, h.allocs(job))
}

func TestOnFailure_ignoreKeepsTheSlot(t *testing.T) {
	h := newHarness(t)
	h.addNodes(3, nil)
	job := h.runJob(policyJob(2, &structs.OnFailureRule{ExitCodes: []int{3}, Action: structs.OnFailureIgnore}))
	allocs := h.allocs(job)
	h.endAlloc(allocs[0], structs.AllocClientStatusFailed, "", 3, 0)
	h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))
	must.SliceLen(t, 2, h.allocs(job), must.Sprint("not rescheduled"))
	must.SliceLen(t, 1, h.liveAllocs(job), must.Sprint("the other runs on"))

	// Another exit code is not the rule's: the reschedule policy applies.
	h.endAlloc(allocs[1], structs.AllocClientStatusFailed, "", 4, 0)
	h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))
	replacementOf(t, h, allocs[1])
	must.SliceLen(t, 3, h.allocs(job))
}

func TestOnFailure_completeLetsTheRestFinish(t *testing.T) {
	h := newHarness(t)
	h.addNodes(3, nil)
	job := h.runJob(policyJob(2, &structs.OnFailureRule{Signals: []string{"SIGKILL"}, Action: structs.OnFailureComplete}))
	allocs := h.allocs(job)
	h.endAlloc(allocs[0], structs.AllocClientStatusFailed, "", 137, 9)
	h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))
	must.SliceLen(t, 2, h.allocs(job))
	live := h.liveAllocs(job)
	must.SliceLen(t, 1, live)
	must.Eq(t, allocs[1].ID, live[0].ID)
	must.StrContains(t, h.lastUpdate().StatusDescription, "(complete)")

	// The other fails too, in a way no rule matches: the job is done all
	// the same, nothing is rescheduled.
	h.endAlloc(allocs[1], structs.AllocClientStatusFailed, "", 1, 0)
	h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))
	must.SliceLen(t, 2, h.allocs(job))
	must.SliceEmpty(t, h.liveAllocs(job))
}

func TestOnFailure_requeueInheritsTheJobBudget(t *testing.T) {
	h := newHarness(t)
	h.addNodes(3, nil)
	job := policyJob(1, &structs.OnFailureRule{Reasons: []string{structs.FailureReasonTimeout}, Action: structs.OnFailureRequeue})
	jobBudget := 150 * time.Second
	job.MaxRunDuration = &jobBudget
	job.SubmitTime = h.now.UnixNano()
	job.TaskGroups[0].ReschedulePolicy = &structs.ReschedulePolicy{Attempts: 0, Interval: time.Hour}
	job = h.runJob(job)
	first := h.allocs(job)[0]

	// The group's minute passes: it ends complete, as max_run_outcome
	// says, and is requeued at once although the policy has no attempts.
	h.now = h.now.Add(time.Minute)
	h.endAlloc(first, structs.AllocClientStatusComplete, structs.AllocTimeoutReasonMaxRunDuration, 0, 2)
	h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))
	second := requeuedOf(t, h, first)
	second.Job = job
	second.CreateTime = h.now.UnixNano()
	must.Eq(t, structs.MaxRunScopeGroup, second.MaxRun().Scope)

	// The second minute passes: 30 s of the job's budget are left, less
	// than the group's minute, so the job's budget bounds the third.
	h.now = h.now.Add(time.Minute)
	h.endAlloc(second, structs.AllocClientStatusComplete, structs.AllocTimeoutReasonMaxRunDuration, 0, 2)
	h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))
	third := requeuedOf(t, h, second)
	third.Job = job
	third.CreateTime = h.now.UnixNano()
	mr := third.MaxRun()
	must.Eq(t, structs.MaxRunScopeJob, mr.Scope)
	must.Eq(t, 30*time.Second, mr.Remaining(h.now))
	must.SliceLen(t, 2, third.RescheduleTracker.Events)

	// The job's budget is spent: the work is given up, not placed again.
	h.now = h.now.Add(30 * time.Second)
	h.endAlloc(third, structs.AllocClientStatusComplete, structs.AllocTimeoutReasonMaxRunDuration, 0, 2)
	h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))
	must.SliceLen(t, 3, h.allocs(job))
	must.Eq(t, structs.PlacementGiveUpReasonJobBudget, h.lastUpdate().StatusDescription)
}

func requeuedOf(t *testing.T, h *harness, prev *structs.Allocation) *structs.Allocation {
	t.Helper()
	for _, a := range h.allocs(&structs.Job{Namespace: prev.Namespace, ID: prev.JobID}) {
		if a.PreviousAllocation == prev.ID {
			stopped, err := h.store.AllocByID(nil, prev.ID)
			must.NoError(t, err)
			must.Eq(t, allocRequeued, stopped.DesiredDescription)
			return a
		}
	}
	t.Fatalf("allocation %s was not requeued", prev.ID)
	return nil
}

func TestOnFailure_retryAfterATimeoutThatCompleted(t *testing.T) {
	h := newHarness(t)
	h.addNodes(3, nil)
	job := h.runJob(policyJob(1, &structs.OnFailureRule{Reasons: []string{structs.FailureReasonTimeout}, Action: structs.OnFailureRetry}))
	first := h.allocs(job)[0]
	h.endAlloc(first, structs.AllocClientStatusComplete, structs.AllocTimeoutReasonMaxRunDuration, 0, 2)
	h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))
	second := replacementOf2(t, h, first)
	must.SliceLen(t, 1, second.RescheduleTracker.Events)
}

// replacementOf2 is replacementOf for an allocation that ended complete.
func replacementOf2(t *testing.T, h *harness, prev *structs.Allocation) *structs.Allocation {
	t.Helper()
	for _, a := range h.allocs(&structs.Job{Namespace: prev.Namespace, ID: prev.JobID}) {
		if a.PreviousAllocation == prev.ID {
			stopped, err := h.store.AllocByID(nil, prev.ID)
			must.NoError(t, err)
			must.Eq(t, allocRescheduled, stopped.DesiredDescription)
			return a
		}
	}
	t.Fatalf("allocation %s was not rescheduled", prev.ID)
	return nil
}

// TestOnFailure_noMatchIsTodaysBehaviour: a timeout no rule matches ends
// complete and stays so; a failure no rule matches is rescheduled.
func TestOnFailure_noMatchIsTodaysBehaviour(t *testing.T) {
	h := newHarness(t)
	h.addNodes(3, nil)
	job := h.runJob(policyJob(2, &structs.OnFailureRule{ExitCodes: []int{42}, Action: structs.OnFailureFailJob}))
	allocs := h.allocs(job)
	h.endAlloc(allocs[0], structs.AllocClientStatusComplete, structs.AllocTimeoutReasonMaxRunDuration, 0, 2)
	h.endAlloc(allocs[1], structs.AllocClientStatusFailed, "", 1, 0)
	h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))
	replacementOf(t, h, allocs[1])
	must.SliceLen(t, 3, h.allocs(job))
	must.False(t, strings.Contains(h.lastUpdate().StatusDescription, "on_failure"))
}

// TestOnFailure_failJobBeforeComplete: of two allocations whose rules end
// the job, fail_job wins over complete, whichever came first, and the
// third allocation is stopped.
func TestOnFailure_failJobBeforeComplete(t *testing.T) {
	h := newHarness(t)
	h.addNodes(3, nil)
	job := h.runJob(policyJob(3,
		&structs.OnFailureRule{ExitCodes: []int{3}, Action: structs.OnFailureComplete},
		&structs.OnFailureRule{ExitCodes: []int{4}, Action: structs.OnFailureFailJob}))
	allocs := h.allocs(job)
	must.SliceLen(t, 3, allocs)
	h.endAlloc(allocs[0], structs.AllocClientStatusFailed, "", 3, 0)
	h.endAlloc(allocs[1], structs.AllocClientStatusFailed, "", 4, 0)
	h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))
	must.SliceEmpty(t, h.liveAllocs(job))
	must.StrContains(t, h.lastUpdate().StatusDescription, "on_failure rule 2 (fail_job)")
}

// TestOnFailure_requeueOfAFailure: a failure a requeue rule matches is
// placed again at once, though the reschedule policy's attempts are used.
func TestOnFailure_requeueOfAFailure(t *testing.T) {
	h := newHarness(t)
	h.addNodes(3, nil)
	job := policyJob(1, &structs.OnFailureRule{ExitCodes: []int{75}, Action: structs.OnFailureRequeue})
	job.MaxRunDuration = new(time.Hour)
	job.TaskGroups[0].ReschedulePolicy = &structs.ReschedulePolicy{Attempts: 0, Interval: time.Hour}
	job = h.runJob(job)
	first := h.allocs(job)[0]
	h.endAlloc(first, structs.AllocClientStatusFailed, "", 75, 0)
	h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))
	second := requeuedOf(t, h, first)
	must.Eq(t, first.Name, second.Name)
}

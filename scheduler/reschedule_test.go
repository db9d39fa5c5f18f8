package scheduler

import (
	"testing"
	"time"

	"github.com/drover-io/drover/structs"
	"github.com/shoenig/test/must"
)

// rescheduleJob is a batch job of one allocation whose failures are
// rescheduled twice an hour after a constant 30 s delay.
func rescheduleJob() *structs.Job {
	job := mockJob(structs.JobTypeBatch, 1)
	job.TaskGroups[0].ReschedulePolicy = &structs.ReschedulePolicy{
		Attempts:      2,
		Interval:      time.Hour,
		Delay:         30 * time.Second,
		DelayFunction: structs.RescheduleDelayConstant,
	}
	return job
}

func TestBatch_rescheduleWithDelayThenAttemptsExhausted(t *testing.T) {
	h := newHarness(t)
	h.addNodes(5, nil)
	job := h.runJob(rescheduleJob())
	first := h.allocs(job)[0]

	// The failure is 5 s old: the reschedule waits for the rest of the delay.
	failedAt := h.now.Add(-5 * time.Second)
	h.setClientStatus(structs.AllocClientStatusFailed, failedAt, first)
	h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))

	followups := h.createdEvals(structs.EvalTriggerRetryFailedAlloc)
	must.SliceLen(t, 1, followups)
	followup := followups[0]
	must.Eq(t, structs.EvalStatusPending, followup.Status)
	must.Eq(t, failedAt.Add(30*time.Second), followup.WaitUntil)
	must.Eq(t, job.ID, followup.JobID)
	must.Eq(t, structs.JobTypeBatch, followup.Type)

	plan := h.lastPlan()
	must.MapEmpty(t, plan.NodeUpdate)
	annotated := planAllocs(plan.NodeAllocation)
	must.SliceLen(t, 1, annotated)
	must.Eq(t, first.ID, annotated[0].ID)
	must.Eq(t, followup.ID, annotated[0].FollowupEvalID)
	stored := h.allocs(job)
	must.SliceLen(t, 1, stored)
	must.Eq(t, structs.AllocClientStatusFailed, stored[0].ClientStatus, must.Sprint("the annotation keeps the client status"))
	must.Eq(t, job.Version, stored[0].Job.Version)

	// Another evaluation before the delay ends changes nothing.
	plans := len(h.plans)
	h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
	must.SliceLen(t, plans, h.plans)
	must.SliceLen(t, 1, h.createdEvals(structs.EvalTriggerRetryFailedAlloc))

	// The follow-up replaces the failed allocation, away from its node.
	h.now = followup.WaitUntil
	h.process(followup)
	second := replacementOf(t, h, first)
	must.Eq(t, first.Name, second.Name)
	must.NotEq(t, first.NodeID, second.NodeID)
	must.NotNil(t, second.RescheduleTracker)
	must.SliceLen(t, 1, second.RescheduleTracker.Events)
	event := second.RescheduleTracker.Events[0]
	must.Eq(t, first.ID, event.PrevAllocID)
	must.Eq(t, first.NodeID, event.PrevNodeID)
	must.Eq(t, 30*time.Second, event.Delay)

	// Second failure, an immediate follow-up past its delay: attempt two.
	h.setClientStatus(structs.AllocClientStatusFailed, h.now, second)
	h.now = h.now.Add(time.Minute)
	h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))
	third := replacementOf(t, h, second)
	must.SliceLen(t, 2, third.RescheduleTracker.Events)

	// Third failure: both attempts of the hour are used; it stays failed.
	h.setClientStatus(structs.AllocClientStatusFailed, h.now, third)
	h.now = h.now.Add(time.Minute)
	plans = len(h.plans)
	creates := len(h.creates)
	h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))
	must.SliceLen(t, plans, h.plans)
	must.SliceLen(t, creates, h.creates)
	must.SliceEmpty(t, h.liveAllocs(job))
	summary, err := h.store.JobSummaryByID(nil, job.Namespace, job.ID)
	must.NoError(t, err)
	must.Eq(t, 3, summary.Summary["g"].Failed)
	must.Eq(t, 0, summary.Summary["g"].Queued)
}

// replacementOf returns the live allocation that replaced prev, checking
// that prev was stopped as rescheduled and linked to it.
func replacementOf(t *testing.T, h *harness, prev *structs.Allocation) *structs.Allocation {
	t.Helper()
	var next *structs.Allocation
	for _, a := range h.allocs(&structs.Job{Namespace: prev.Namespace, ID: prev.JobID}) {
		if a.PreviousAllocation == prev.ID {
			must.Nil(t, next, must.Sprint("one replacement"))
			next = a
		}
	}
	must.NotNil(t, next, must.Sprintf("allocation %s was not replaced", prev.ID))
	stopped, err := h.store.AllocByID(nil, prev.ID)
	must.NoError(t, err)
	must.Eq(t, structs.AllocDesiredStatusStop, stopped.DesiredStatus)
	must.Eq(t, allocRescheduled, stopped.DesiredDescription)
	must.Eq(t, next.ID, stopped.NextAllocation)
	must.Eq(t, structs.AllocClientStatusFailed, stopped.ClientStatus)
	return next
}

func TestBatch_rescheduleNowWhenDelayPassed(t *testing.T) {
	h := newHarness(t)
	h.addNodes(3, nil)
	job := h.runJob(rescheduleJob())
	first := h.allocs(job)[0]
	h.setClientStatus(structs.AllocClientStatusFailed, h.now.Add(-time.Minute), first)
	h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))

	must.SliceEmpty(t, h.createdEvals(structs.EvalTriggerRetryFailedAlloc))
	replacementOf(t, h, first)
	must.SliceLen(t, 1, h.liveAllocs(job))
}

func TestBatch_noReschedulePolicyLeavesFailedAlloc(t *testing.T) {
	h := newHarness(t)
	h.addNodes(3, nil)
	job := rescheduleJob()
	job.TaskGroups[0].ReschedulePolicy = &structs.ReschedulePolicy{Attempts: 0, Interval: time.Hour}
	job = h.runJob(job)
	h.setClientStatus(structs.AllocClientStatusFailed, h.now.Add(-time.Hour), h.allocs(job)...)
	h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))
	must.SliceLen(t, 1, h.plans)
	must.SliceLen(t, 1, h.allocs(job))
}

func TestBatch_followupsOfCloseFailuresAreBatched(t *testing.T) {
	h := newHarness(t)
	h.addNodes(5, nil)
	job := rescheduleJob()
	job.TaskGroups[0].Count = 3
	job = h.runJob(job)
	allocs := h.allocs(job)
	h.setClientStatus(structs.AllocClientStatusFailed, h.now, allocs[0], allocs[1])
	h.setClientStatus(structs.AllocClientStatusFailed, h.now.Add(20*time.Second), allocs[2])
	h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))

	followups := h.createdEvals(structs.EvalTriggerRetryFailedAlloc)
	must.SliceLen(t, 2, followups)
	must.Eq(t, h.now.Add(30*time.Second), followups[0].WaitUntil)
	must.Eq(t, h.now.Add(50*time.Second), followups[1].WaitUntil)
	byEval := make(map[string]int)
	for _, a := range h.allocs(job) {
		byEval[a.FollowupEvalID]++
	}
	must.Eq(t, map[string]int{followups[0].ID: 2, followups[1].ID: 1}, byEval)
}

func TestService_failedAllocRescheduledUnlimited(t *testing.T) {
	h := newHarness(t)
	h.addNodes(5, nil)
	job := h.runJob(mockJob(structs.JobTypeService, 2))
	policy := job.TaskGroups[0].ReschedulePolicy
	must.True(t, policy.Unlimited)

	alloc := h.allocs(job)[0]
	for attempt := range 4 {
		h.setClientStatus(structs.AllocClientStatusFailed, h.now, alloc)
		h.now = h.now.Add(2 * policy.MaxDelay)
		h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))
		alloc = replacementOf(t, h, alloc)
		must.SliceLen(t, attempt+1, alloc.RescheduleTracker.Events)
	}
	must.SliceLen(t, 2, h.liveAllocs(job))
}

func TestNextDelay(t *testing.T) {
	base := time.Unix(1_700_000_000, 0)
	events := func(delays ...time.Duration) []*structs.RescheduleEvent {
		var out []*structs.RescheduleEvent
		for i, d := range delays {
			out = append(out, &structs.RescheduleEvent{RescheduleTime: base.Add(time.Duration(i) * time.Second).UnixNano(), Delay: d})
		}
		return out
	}
	s := time.Second
	cases := []struct {
		name   string
		fn     string
		events []*structs.RescheduleEvent
		want   time.Duration
	}{
		{"constant first", structs.RescheduleDelayConstant, nil, 5 * s},
		{"constant later", structs.RescheduleDelayConstant, events(5*s, 5*s), 5 * s},
		{"exponential first", structs.RescheduleDelayExponential, nil, 5 * s},
		{"exponential doubles", structs.RescheduleDelayExponential, events(5*s, 10*s), 20 * s},
		{"exponential capped", structs.RescheduleDelayExponential, events(40 * s), 60 * s},
		{"fibonacci first", structs.RescheduleDelayFibonacci, nil, 5 * s},
		{"fibonacci second", structs.RescheduleDelayFibonacci, events(5 * s), 5 * s},
		{"fibonacci sums", structs.RescheduleDelayFibonacci, events(5*s, 5*s, 10*s), 15 * s},
		{"fibonacci capped", structs.RescheduleDelayFibonacci, events(30*s, 50*s), 60 * s},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			policy := &structs.ReschedulePolicy{Delay: 5 * s, DelayFunction: tc.fn, MaxDelay: time.Minute, Unlimited: true}
			must.Eq(t, tc.want, nextDelay(policy, tc.events, base.Add(10*s)))
		})
	}
}

func TestNextDelay_restartsAfterLongHealthyRun(t *testing.T) {
	base := time.Unix(1_700_000_000, 0)
	policy := &structs.ReschedulePolicy{Delay: 5 * time.Second, DelayFunction: structs.RescheduleDelayExponential, MaxDelay: time.Minute, Unlimited: true}
	events := []*structs.RescheduleEvent{{RescheduleTime: base.UnixNano(), Delay: time.Minute}}
	must.Eq(t, time.Minute, nextDelay(policy, events, base.Add(90*time.Second)))
	must.Eq(t, 5*time.Second, nextDelay(policy, events, base.Add(time.Hour)))
}

func TestDecideReschedule(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	limited := &structs.ReschedulePolicy{Attempts: 1, Interval: time.Hour, Delay: time.Minute, DelayFunction: structs.RescheduleDelayConstant}
	failed := func(finished time.Time, tracker *structs.RescheduleTracker, followup string) *structs.Allocation {
		return &structs.Allocation{
			ID:                "a",
			ClientStatus:      structs.AllocClientStatusFailed,
			TaskStates:        map[string]*structs.TaskState{"t": {FinishedAt: finished}},
			RescheduleTracker: tracker,
			FollowupEvalID:    followup,
		}
	}
	recent := &structs.RescheduleTracker{Events: []*structs.RescheduleEvent{{RescheduleTime: now.Add(-10 * time.Minute).UnixNano()}}}
	old := &structs.RescheduleTracker{Events: []*structs.RescheduleEvent{{RescheduleTime: now.Add(-3 * time.Hour).UnixNano()}}}
	cases := []struct {
		name   string
		alloc  *structs.Allocation
		policy *structs.ReschedulePolicy
		evalID string
		want   rescheduleWhen
	}{
		{"no policy", failed(now, nil, ""), nil, "", rescheduleNever},
		{"delay pending", failed(now, nil, ""), limited, "", rescheduleLater},
		{"delay passed", failed(now.Add(-time.Minute), nil, ""), limited, "", rescheduleNow},
		{"within the window", failed(now.Add(-time.Minute+time.Second/2), nil, ""), limited, "", rescheduleNow},
		{"its follow-up", failed(now, nil, "e1"), limited, "e1", rescheduleNow},
		{"another eval", failed(now, nil, "e1"), limited, "e2", rescheduleLater},
		{"attempts used", failed(now.Add(-time.Hour), recent, ""), limited, "", rescheduleNever},
		{"attempts outside interval", failed(now.Add(-time.Hour), old, ""), limited, "", rescheduleNow},
		{"unlimited", failed(now.Add(-time.Hour), recent, ""), &structs.ReschedulePolicy{Unlimited: true, Delay: time.Minute}, "", rescheduleNow},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			must.Eq(t, tc.want, decideReschedule(tc.alloc, tc.policy, now, tc.evalID).when)
		})
	}
}

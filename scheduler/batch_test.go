package scheduler

import (
	"slices"
	"testing"
	"time"

	"github.com/drover-io/drover/structs"
	"github.com/shoenig/test/must"
)

func TestBatch_placesCountOverManyNodes(t *testing.T) {
	h := newHarness(t)
	nodes := h.addNodes(200, nil)
	job := h.runJob(mockJob(structs.JobTypeBatch, 50))

	allocs := h.allocs(job)
	must.SliceLen(t, 50, allocs)
	names := make([]string, 0, len(allocs))
	nodeNames := make(map[string]string)
	for _, n := range nodes {
		nodeNames[n.ID] = n.Name
	}
	for _, a := range allocs {
		names = append(names, a.Name)
		must.Eq(t, job.ID, a.JobID)
		must.Eq(t, "g", a.TaskGroup)
		must.Eq(t, nodeNames[a.NodeID], a.NodeName)
		must.Eq(t, structs.AllocDesiredStatusRun, a.DesiredStatus)
		must.Eq(t, structs.AllocClientStatusPending, a.ClientStatus)
		must.Eq(t, &structs.Resources{CPU: 500, MemoryMB: 256}, a.Resources)
		must.Eq(t, &structs.Resources{CPU: 500, MemoryMB: 256}, a.TaskResources["t"])
		must.NotNil(t, a.Metrics)
		must.Positive(t, a.Metrics.NodesEvaluated)
		must.Eq(t, job.Version, a.Job.Version)
		must.NotEq(t, 0, a.CreateTime)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	must.SliceLen(t, 50, names, must.Sprint("alloc names are unique"))
	must.SliceContains(t, names, job.ID+".g[0]")
	must.SliceContains(t, names, job.ID+".g[49]")

	eval := h.lastUpdate()
	must.Eq(t, structs.EvalStatusComplete, eval.Status)
	must.MapEmpty(t, eval.FailedTGAllocs)
	must.Eq(t, map[string]int{"g": 0}, eval.QueuedAllocations)
	must.Eq(t, "", eval.BlockedEval)
	must.SliceLen(t, 1, h.plans)
	must.Nil(t, h.plans[0].NodeUpdate)
}

func TestBatch_noChangeIsNoPlan(t *testing.T) {
	h := newHarness(t)
	h.addNodes(10, nil)
	job := h.runJob(mockJob(structs.JobTypeBatch, 5))
	h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
	must.SliceLen(t, 1, h.plans)
	must.Eq(t, structs.EvalStatusComplete, h.lastUpdate().Status)
	must.SliceLen(t, 5, h.allocs(job))
}

func TestBatch_completedAllocsAreNotRerun(t *testing.T) {
	h := newHarness(t)
	h.addNodes(20, nil)
	job := h.runJob(mockJob(structs.JobTypeBatch, 6))
	allocs := h.allocs(job)
	h.setClientStatus(structs.AllocClientStatusComplete, h.now, allocs[:3]...)
	h.setClientStatusDesc(structs.AllocClientStatusComplete, structs.AllocTimeoutReasonMaxRunDuration, h.now, allocs[3:]...)

	for _, trigger := range []string{structs.EvalTriggerNodeUpdate, structs.EvalTriggerJobRegister, structs.EvalTriggerRetryFailedAlloc} {
		h.process(mockEval(job, trigger))
	}
	// Re-registering the identical job keeps its version: nothing re-runs.
	same := h.upsertJob(job.Copy())
	must.Eq(t, job.Version, same.Version)
	h.process(mockEval(same, structs.EvalTriggerJobRegister))

	must.SliceLen(t, 1, h.plans, must.Sprint("only the first evaluation placed anything"))
	must.SliceLen(t, 6, h.allocs(job))
	must.Eq(t, map[string]int{"g": 0}, h.lastUpdate().QueuedAllocations)
}

func TestBatch_maxRunDurationExceededIsCompleteAndNeverRescheduled(t *testing.T) {
	h := newHarness(t)
	h.addNodes(5, nil)
	job := mockJob(structs.JobTypeBatch, 1)
	maxRun := 10 * time.Second
	job.TaskGroups[0].MaxRunDuration = &maxRun
	job = h.runJob(job)
	alloc := h.allocs(job)[0]
	h.setClientStatusDesc(structs.AllocClientStatusComplete, structs.AllocTimeoutReasonMaxRunDuration, h.now, alloc)

	h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))
	must.SliceLen(t, 1, h.plans)
	must.SliceEmpty(t, h.createdEvals(structs.EvalTriggerRetryFailedAlloc))
	allocs := h.allocs(job)
	must.SliceLen(t, 1, allocs)
	must.Eq(t, structs.AllocClientStatusComplete, allocs[0].ClientStatus)
	must.Eq(t, "", allocs[0].FollowupEvalID)
}

func TestBatch_newVersionRerunsFinishedAllocs(t *testing.T) {
	h := newHarness(t)
	h.addNodes(10, nil)
	job := h.runJob(mockJob(structs.JobTypeBatch, 3))
	h.setClientStatus(structs.AllocClientStatusComplete, h.now, h.allocs(job)...)

	// As in Nomad, changing a batch job is how a user runs it again.
	next := h.updateJob(job, func(j *structs.Job) { j.Meta = map[string]string{"run": "2"} })
	must.Eq(t, job.Version+1, next.Version)
	h.process(mockEval(next, structs.EvalTriggerJobRegister))

	live := h.liveAllocs(next)
	must.SliceLen(t, 3, live)
	for _, a := range live {
		must.Eq(t, next.Version, a.Job.Version)
	}
}

func TestGeneric_resourceExhaustionQueuesThenPlacesWhenCapacityAppears(t *testing.T) {
	for _, jobType := range []string{structs.JobTypeBatch, structs.JobTypeService} {
		t.Run(jobType, func(t *testing.T) { testExhaustionThenPlacement(t, jobType) })
	}
}

func testExhaustionThenPlacement(t *testing.T, jobType string) {
	h := newHarness(t)
	h.addNodes(10, nil) // 8 allocations of 500 MHz fit on each
	job := h.runJob(mockJob(jobType, 100))

	must.SliceLen(t, 80, h.allocs(job))
	eval := h.lastUpdate()
	must.Eq(t, structs.EvalStatusComplete, eval.Status)
	must.Eq(t, map[string]int{"g": 20}, eval.QueuedAllocations)
	metric := eval.FailedTGAllocs["g"]
	must.NotNil(t, metric)
	must.Eq(t, 10, metric.NodesEvaluated)
	must.Eq(t, 10, metric.NodesExhausted)
	must.Eq(t, map[string]int{dimensionCPU: 10}, metric.DimensionExhausted)
	must.Eq(t, 19, metric.CoalescedFailures)
	must.Eq(t, map[string]int{"dc1": 10}, metric.NodesAvailable)

	blocked := h.createdEvals(structs.EvalTriggerQueuedAllocs)
	must.SliceLen(t, 1, blocked)
	must.Eq(t, structs.EvalStatusBlocked, blocked[0].Status)
	must.Eq(t, blocked[0].ID, eval.BlockedEval)
	must.Eq(t, eval.ID, blocked[0].PreviousEval)

	summary, err := h.store.JobSummaryByID(nil, job.Namespace, job.ID)
	must.NoError(t, err)
	must.Eq(t, 20, summary.Summary["g"].Queued)
	must.Eq(t, 80, summary.Summary["g"].Starting)

	// Not enough room yet: the blocked evaluation is blocked again.
	h.addNodes(1, nil)
	h.process(blocked[0])
	must.SliceLen(t, 88, h.allocs(job))
	must.SliceLen(t, 1, h.reblock)
	must.Eq(t, blocked[0].ID, h.reblock[0].ID)
	must.Eq(t, structs.EvalStatusBlocked, h.reblock[0].Status)
	must.Eq(t, map[string]int{"g": 12}, h.reblock[0].QueuedAllocations)
	must.SliceLen(t, 1, h.createdEvals(structs.EvalTriggerQueuedAllocs), must.Sprint("no second blocked evaluation"))

	// Enough room: everything is placed and nothing is queued.
	h.addNodes(2, nil)
	h.process(h.reblock[0])
	must.SliceLen(t, 100, h.allocs(job))
	done := h.lastUpdate()
	must.Eq(t, blocked[0].ID, done.ID)
	must.Eq(t, structs.EvalStatusComplete, done.Status)
	must.Eq(t, map[string]int{"g": 0}, done.QueuedAllocations)
	must.MapEmpty(t, done.FailedTGAllocs)
	summary, err = h.store.JobSummaryByID(nil, job.Namespace, job.ID)
	must.NoError(t, err)
	must.Eq(t, 0, summary.Summary["g"].Queued)
}

func TestBatch_capacityCountsOtherJobsAllocs(t *testing.T) {
	h := newHarness(t)
	h.addNodes(2, nil)
	first := mockJob(structs.JobTypeBatch, 1)
	first.TaskGroups[0].Tasks[0].Resources = &structs.Resources{CPU: 3000, MemoryMB: 256}
	h.runJob(first)
	second := mockJob(structs.JobTypeBatch, 2)
	second.TaskGroups[0].Tasks[0].Resources = &structs.Resources{CPU: 3000, MemoryMB: 256}
	second = h.runJob(second)

	must.SliceLen(t, 1, h.allocs(second))
	must.Eq(t, map[string]int{"g": 1}, h.lastUpdate().QueuedAllocations)

	// A finished allocation frees its room.
	h.setClientStatus(structs.AllocClientStatusComplete, h.now, h.allocs(first)...)
	h.process(mockEval(second, structs.EvalTriggerQueuedAllocs))
	must.SliceLen(t, 2, h.allocs(second))
}

func TestBatch_lostAllocsAreReplaced(t *testing.T) {
	h := newHarness(t)
	nodes := h.addNodes(4, nil)
	job := h.runJob(mockJob(structs.JobTypeBatch, 12))
	var down, other *structs.Node
	for _, n := range nodes {
		if n.ID == h.allocs(job)[0].NodeID {
			down = n
		} else if other == nil {
			other = n
		}
	}
	var onDown []*structs.Allocation
	for _, a := range h.allocs(job) {
		if a.NodeID == down.ID {
			onDown = append(onDown, a)
		}
	}
	must.SliceNotEmpty(t, onDown)

	h.setNodeStatus(down, structs.NodeStatusDown)
	h.process(mockEval(job, structs.EvalTriggerNodeUpdate))

	plan := h.lastPlan()
	must.SliceLen(t, len(onDown), plan.NodeUpdate[down.ID])
	for _, stopped := range plan.NodeUpdate[down.ID] {
		must.Eq(t, structs.AllocDesiredStatusStop, stopped.DesiredStatus)
		must.Eq(t, structs.AllocClientStatusLost, stopped.ClientStatus)
		must.Eq(t, allocLost, stopped.DesiredDescription)
		must.NotEq(t, "", stopped.NextAllocation)
	}
	placed := planAllocs(plan.NodeAllocation)
	must.SliceLen(t, len(onDown), placed)
	lostIDs := allocIDs(onDown)
	for _, a := range placed {
		must.NotEq(t, down.ID, a.NodeID)
		must.True(t, lostIDs[a.PreviousAllocation])
		must.Nil(t, a.RescheduleTracker)
	}
	must.SliceLen(t, 12, h.liveAllocs(job))

	// Completed work on a node that goes down is not run again.
	h.setClientStatus(structs.AllocClientStatusComplete, h.now, h.liveAllocs(job)...)
	h.setNodeStatus(other, structs.NodeStatusDown)
	plans := len(h.plans)
	h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
	must.SliceLen(t, plans, h.plans)
}

func TestBatch_countDecreaseStopsHighestIndexes(t *testing.T) {
	h := newHarness(t)
	h.addNodes(5, nil)
	job := h.runJob(mockJob(structs.JobTypeBatch, 5))
	next := h.updateJob(job, func(j *structs.Job) { j.TaskGroups[0].Count = 2 })
	h.process(mockEval(next, structs.EvalTriggerJobRegister))

	live := h.liveAllocs(next)
	must.SliceLen(t, 2, live)
	var names []string
	for _, a := range live {
		names = append(names, a.Name)
	}
	slices.Sort(names)
	must.Eq(t, []string{job.ID + ".g[0]", job.ID + ".g[1]"}, names)
	for _, stopped := range planAllocs(h.lastPlan().NodeUpdate) {
		must.Eq(t, allocNotNeeded, stopped.DesiredDescription)
	}
}

func TestBatch_stopAndPurgeStopEveryAlloc(t *testing.T) {
	for _, purge := range []bool{false, true} {
		t.Run(map[bool]string{false: "stop", true: "purge"}[purge], func(t *testing.T) {
			h := newHarness(t)
			h.addNodes(10, nil)
			job := h.runJob(mockJob(structs.JobTypeBatch, 8))
			h.setClientStatus(structs.AllocClientStatusComplete, h.now, h.allocs(job)[0])
			h.setClientStatus(structs.AllocClientStatusRunning, h.now, h.allocs(job)[1])

			if purge {
				must.NoError(t, h.store.DeleteJob(h.nextIndex(), job.Namespace, job.ID))
			} else {
				job = h.updateJob(job, func(j *structs.Job) { j.Stop = true })
			}
			h.process(mockEval(job, structs.EvalTriggerJobDeregister))

			must.SliceLen(t, 7, planAllocs(h.lastPlan().NodeUpdate), must.Sprint("every allocation but the complete one"))
			must.MapEmpty(t, h.lastPlan().NodeAllocation)
			must.SliceEmpty(t, h.liveAllocs(job))
			for _, a := range h.allocs(job) {
				if a.ClientStatus != structs.AllocClientStatusComplete {
					must.Eq(t, structs.AllocDesiredStatusStop, a.DesiredStatus)
				}
			}
			eval := h.lastUpdate()
			must.Eq(t, structs.EvalStatusComplete, eval.Status)
			if purge {
				must.Nil(t, eval.QueuedAllocations)
			} else {
				must.Eq(t, map[string]int{"g": 0}, eval.QueuedAllocations)
			}
		})
	}
}

func TestBatch_removedGroupIsStopped(t *testing.T) {
	h := newHarness(t)
	h.addNodes(5, nil)
	job := mockJob(structs.JobTypeBatch, 2)
	extra := job.TaskGroups[0].Copy()
	extra.Name = "extra"
	job.TaskGroups = append(job.TaskGroups, extra)
	job = h.runJob(job)
	must.SliceLen(t, 4, h.allocs(job))

	next := h.updateJob(job, func(j *structs.Job) { j.TaskGroups = j.TaskGroups[:1] })
	h.process(mockEval(next, structs.EvalTriggerJobRegister))
	live := h.liveAllocs(next)
	must.SliceLen(t, 2, live)
	for _, a := range live {
		must.Eq(t, "g", a.TaskGroup)
	}
}

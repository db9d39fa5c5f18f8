package scheduler

import (
	"testing"
	"time"

	"github.com/drover-io/drover/structs"
	"github.com/shoenig/test/must"
)

// runningJob runs a job of the given type and count on nodes, and reports
// its allocations as running.
func runningJob(t *testing.T, h *harness, job *structs.Job) (*structs.Job, map[string]*structs.Allocation) {
	t.Helper()
	job = h.runJob(job)
	allocs := h.allocs(job)
	h.setClientStatus(structs.AllocClientStatusRunning, time.Time{}, allocs...)
	byID := make(map[string]*structs.Allocation)
	for _, a := range h.allocs(job) {
		byID[a.ID] = a
	}
	return job, byID
}

func TestUpdate_inPlace(t *testing.T) {
	maxRun := func(d time.Duration) *time.Duration { return &d }
	cases := []struct {
		name    string
		jobType string
		change  func(*structs.Job)
	}{
		{"batch job meta", structs.JobTypeBatch, func(j *structs.Job) { j.Meta = map[string]string{"owner": "ops"} }},
		{"batch max_run_duration", structs.JobTypeBatch, func(j *structs.Job) { j.TaskGroups[0].MaxRunDuration = maxRun(time.Hour) }},
		{"sysbatch max_run_duration", structs.JobTypeSysbatch, func(j *structs.Job) { j.TaskGroups[0].MaxRunDuration = maxRun(time.Minute) }},
		{"service job meta", structs.JobTypeService, func(j *structs.Job) { j.Meta = map[string]string{"owner": "ops"} }},
		{"system kill timeout", structs.JobTypeSystem, func(j *structs.Job) { j.TaskGroups[0].Tasks[0].KillTimeout = time.Minute }},
		{"restart policy", structs.JobTypeService, func(j *structs.Job) { j.TaskGroups[0].RestartPolicy.Attempts = 9 }},
		{"constraint every node still meets", structs.JobTypeBatch, func(j *structs.Job) {
			j.Constraints = append(j.Constraints, &structs.Constraint{LTarget: "${attr.kernel.name}", RTarget: "linux", Operand: "="})
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.addNodes(6, nil)
			count := 4
			if tc.jobType == structs.JobTypeSystem || tc.jobType == structs.JobTypeSysbatch {
				count = 1
			}
			job, before := runningJob(t, h, mockJob(tc.jobType, count))
			next := h.updateJob(job, tc.change)
			must.Eq(t, job.Version+1, next.Version)
			h.process(mockEval(next, structs.EvalTriggerJobRegister))

			plan := h.lastPlan()
			must.MapEmpty(t, plan.NodeUpdate, must.Sprint("nothing is stopped"))
			updated := planAllocs(plan.NodeAllocation)
			must.SliceLen(t, len(before), updated)
			for _, a := range updated {
				must.NotNil(t, before[a.ID], must.Sprint("an in-place update keeps the allocation ID"))
				must.Eq(t, next.Version, a.Job.Version)
			}
			after := h.allocs(next)
			must.SliceLen(t, len(before), after)
			for _, a := range after {
				prev := before[a.ID]
				must.NotNil(t, prev)
				must.Eq(t, prev.NodeID, a.NodeID)
				must.Eq(t, prev.CreateTime, a.CreateTime, must.Sprint("the max_run_duration anchor stays"))
				must.Eq(t, structs.AllocClientStatusRunning, a.ClientStatus)
				must.Eq(t, structs.AllocDesiredStatusRun, a.DesiredStatus)
				must.Eq(t, next.Version, a.Job.Version)
			}
		})
	}
}

func TestUpdate_destructive(t *testing.T) {
	cases := []struct {
		name    string
		jobType string
		change  func(*structs.Job)
	}{
		{"task config", structs.JobTypeBatch, func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Config = map[string]any{"run_for": "20s"} }},
		{"task resources", structs.JobTypeService, func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Resources.MemoryMB = 300 }},
		{"task env", structs.JobTypeBatch, func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Env = map[string]string{"A": "1"} }},
		{"driver", structs.JobTypeBatch, func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Driver = "raw_exec" }},
		{"group meta", structs.JobTypeService, func(j *structs.Job) { j.TaskGroups[0].Meta = map[string]string{"x": "y"} }},
		{"system task config", structs.JobTypeSystem, func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Config = map[string]any{"run_for": "1h"} }},
		// As in Nomad: where an allocation runs was chosen by them.
		{"job affinity", structs.JobTypeService, func(j *structs.Job) { j.Affinities = []*structs.Affinity{rackAffinity("r1", 50)} }},
		{"task affinity", structs.JobTypeBatch, func(j *structs.Job) {
			j.TaskGroups[0].Tasks[0].Affinities = []*structs.Affinity{rackAffinity("r1", -50)}
		}},
		{"group spread", structs.JobTypeService, func(j *structs.Job) {
			j.TaskGroups[0].Spreads = []*structs.Spread{{Attribute: "${meta.rack}", Weight: 50}}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.addNodes(6, nil)
			count := 4
			if tc.jobType == structs.JobTypeSystem {
				count = 1
			}
			job, before := runningJob(t, h, mockJob(tc.jobType, count))
			next := h.updateJob(job, tc.change)
			h.process(mockEval(next, structs.EvalTriggerJobRegister))

			plan := h.lastPlan()
			stopped := planAllocs(plan.NodeUpdate)
			must.SliceLen(t, len(before), stopped)
			for _, s := range stopped {
				must.NotNil(t, before[s.ID])
				must.Eq(t, allocUpdating, s.DesiredDescription)
			}
			placed := planAllocs(plan.NodeAllocation)
			must.SliceLen(t, len(before), placed)
			for _, a := range placed {
				must.Nil(t, before[a.ID], must.Sprint("a destructive update makes a new allocation"))
				prev := before[a.PreviousAllocation]
				must.NotNil(t, prev)
				must.Eq(t, prev.Name, a.Name)
				if tc.jobType == structs.JobTypeSystem {
					must.Eq(t, prev.NodeID, a.NodeID)
				}
			}
			live := h.liveAllocs(next)
			must.SliceLen(t, len(before), live)
			for _, a := range live {
				must.Eq(t, next.Version, a.Job.Version)
			}
		})
	}
}

// TestUpdate_constraintAndMaxRunDurationChecksFeasibility changes a
// constraint together with max_run_duration: allocations on nodes that no
// longer meet the constraint are replaced, the others updated in place.
func TestUpdate_constraintAndMaxRunDurationChecksFeasibility(t *testing.T) {
	h := newHarness(t)
	nodes := h.addNodes(8, nil) // racks r0..r3, two nodes each
	rack := make(map[string]string)
	for _, n := range nodes {
		rack[n.ID] = n.Meta["rack"]
	}
	job := mockJob(structs.JobTypeBatch, 8)
	job.Constraints = []*structs.Constraint{{LTarget: "${attr.kernel.name}", RTarget: "linux", Operand: "="}}
	job.TaskGroups[0].Constraints = []*structs.Constraint{{Operand: structs.ConstraintDistinctHosts}}
	job, before := runningJob(t, h, job)
	must.MapLen(t, 8, before)

	maxRun := time.Hour
	next := h.updateJob(job, func(j *structs.Job) {
		j.TaskGroups[0].MaxRunDuration = &maxRun
		j.TaskGroups[0].Constraints = append(j.TaskGroups[0].Constraints,
			&structs.Constraint{LTarget: "${meta.rack}", RTarget: "r[01]", Operand: structs.ConstraintRegex})
	})
	h.process(mockEval(next, structs.EvalTriggerJobRegister))

	var inPlace, kept int
	for _, a := range h.allocs(next) {
		prev := before[a.ID]
		must.NotNil(t, prev, must.Sprint("no new allocation: no room"))
		must.True(t, isLive(a))
		must.Eq(t, prev.NodeID, a.NodeID)
		if a.Job.Version == next.Version {
			inPlace++
			must.SliceContains(t, []string{"r0", "r1"}, rack[a.NodeID])
		} else {
			kept++
			must.SliceContains(t, []string{"r2", "r3"}, rack[a.NodeID])
		}
	}
	must.Eq(t, 4, inPlace)
	must.Eq(t, 4, kept, must.Sprint("with distinct_hosts the r0/r1 nodes are full: the others keep running"))
	must.Eq(t, map[string]int{"g": 4}, h.lastUpdate().QueuedAllocations)
	metric := h.lastUpdate().FailedTGAllocs["g"]
	must.NotNil(t, metric)
	must.Eq(t, 4, metric.ConstraintFiltered["${meta.rack} regexp r[01]"])
	must.Eq(t, 4, metric.ConstraintFiltered[reasonDistinctHosts])

	// With room on racks r0 and r1, the rest move there.
	h.addNodes(4, func(i int, n *structs.Node) { n.Meta["rack"] = "r1"; rack[n.ID] = "r1" })
	h.process(mockEval(next, structs.EvalTriggerNodeUpdate))
	live := h.liveAllocs(next)
	must.SliceLen(t, 8, live)
	for _, a := range live {
		must.SliceContains(t, []string{"r0", "r1"}, rack[a.NodeID])
		must.Eq(t, next.Version, a.Job.Version)
	}
	for _, s := range planAllocs(h.lastPlan().NodeUpdate) {
		must.Eq(t, allocUpdating, s.DesiredDescription)
		must.SliceContains(t, []string{"r2", "r3"}, rack[s.NodeID])
	}
}

func TestUpdate_infeasibleNodeIsNeverUpdatedInPlace(t *testing.T) {
	h := newHarness(t)
	h.addNodes(2, func(i int, n *structs.Node) { n.Attributes["os.version"] = "20.04" })
	job, before := runningJob(t, h, mockJob(structs.JobTypeBatch, 2))
	h.addNodes(2, func(i int, n *structs.Node) { n.Attributes["os.version"] = "24.04" })

	maxRun := time.Hour
	next := h.updateJob(job, func(j *structs.Job) {
		j.TaskGroups[0].MaxRunDuration = &maxRun
		j.Constraints = []*structs.Constraint{{LTarget: "${attr.os.version}", RTarget: ">= 22.04", Operand: structs.ConstraintVersion}}
	})
	h.process(mockEval(next, structs.EvalTriggerJobRegister))
	live := h.liveAllocs(next)
	must.SliceLen(t, 2, live)
	for _, a := range live {
		must.Nil(t, before[a.ID])
		must.NotNil(t, before[a.PreviousAllocation])
	}
}

func TestNeedsNewAlloc(t *testing.T) {
	base := mockJob(structs.JobTypeBatch, 1).TaskGroups[0]
	cases := []struct {
		name   string
		change func(*structs.TaskGroup)
		want   bool
	}{
		{"nothing", func(*structs.TaskGroup) {}, false},
		{"count", func(tg *structs.TaskGroup) { tg.Count = 7 }, false},
		{"max_run_duration", func(tg *structs.TaskGroup) { d := time.Second; tg.MaxRunDuration = &d }, false},
		{"reschedule policy", func(tg *structs.TaskGroup) { tg.ReschedulePolicy.Attempts = 5 }, false},
		{"group constraint", func(tg *structs.TaskGroup) {
			tg.Constraints = []*structs.Constraint{{LTarget: "${node.class}", RTarget: "x", Operand: "="}}
		}, false},
		{"kill signal", func(tg *structs.TaskGroup) { tg.Tasks[0].KillSignal = "SIGTERM" }, false},
		{"config number typed differently", func(tg *structs.TaskGroup) { tg.Tasks[0].Config = map[string]any{"run_for": "10s"} }, false},
		{"config", func(tg *structs.TaskGroup) { tg.Tasks[0].Config = map[string]any{"run_for": "11s"} }, true},
		{"user", func(tg *structs.TaskGroup) { tg.Tasks[0].User = "nobody" }, true},
		{"task meta", func(tg *structs.TaskGroup) { tg.Tasks[0].Meta = map[string]string{"a": "b"} }, true},
		{"cpu", func(tg *structs.TaskGroup) { tg.Tasks[0].Resources.CPU++ }, true},
		{"ephemeral disk added", func(tg *structs.TaskGroup) { tg.EphemeralDisk = &structs.EphemeralDisk{SizeMB: 300} }, true},
		{"log config", func(tg *structs.TaskGroup) { tg.Tasks[0].LogConfig.MaxFiles++ }, true},
		{"artifact", func(tg *structs.TaskGroup) {
			tg.Tasks[0].Artifacts = []*structs.TaskArtifact{{GetterSource: "https://example.com/a"}}
		}, true},
		{"lifecycle", func(tg *structs.TaskGroup) { tg.Tasks[0].Lifecycle = &structs.TaskLifecycle{Hook: "prestart"} }, true},
		{"identity", func(tg *structs.TaskGroup) { tg.Tasks[0].Identity = &structs.WorkloadIdentity{Env: true} }, true},
		{"renamed task", func(tg *structs.TaskGroup) { tg.Tasks[0].Name = "other" }, true},
		{"added task", func(tg *structs.TaskGroup) { tg.Tasks = append(tg.Tasks, tg.Tasks[0].Copy()) }, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			next := base.Copy()
			tc.change(next)
			must.Eq(t, tc.want, needsNewAlloc(base, next))
		})
	}
}

func TestEqualConfig_jsonNumbers(t *testing.T) {
	must.True(t, equalConfig(map[string]any{"n": 3}, map[string]any{"n": float64(3)}))
	must.True(t, equalConfig(map[string]any{"a": []any{"x"}}, map[string]any{"a": []string{"x"}}))
	must.False(t, equalConfig(map[string]any{"n": 3}, map[string]any{"n": 4}))
	must.True(t, equalConfig(nil, nil))
}

func TestUpdate_destructiveWithoutRoomKeepsOldVersion(t *testing.T) {
	for _, jobType := range []string{structs.JobTypeBatch, structs.JobTypeSystem} {
		t.Run(jobType, func(t *testing.T) {
			h := newHarness(t)
			h.addNodes(2, nil)
			count := 2
			if jobType == structs.JobTypeSystem {
				count = 1
			}
			job, before := runningJob(t, h, mockJob(jobType, count))
			next := h.updateJob(job, func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Resources.CPU = 5000 })
			h.process(mockEval(next, structs.EvalTriggerJobRegister))

			live := h.liveAllocs(next)
			must.SliceLen(t, 2, live)
			for _, a := range live {
				must.NotNil(t, before[a.ID])
				must.Eq(t, job.Version, a.Job.Version)
			}
			eval := h.lastUpdate()
			must.Eq(t, map[string]int{"g": 2}, eval.QueuedAllocations)
			must.Eq(t, map[string]int{dimensionCPU: 2}, eval.FailedTGAllocs["g"].DimensionExhausted)
		})
	}
}

func TestUpdate_systemNodeNoLongerFeasibleForNewDriver(t *testing.T) {
	h := newHarness(t)
	h.addNodes(2, func(i int, n *structs.Node) {
		if i == 0 {
			delete(n.Drivers, "raw_exec")
			delete(n.Attributes, "driver.raw_exec")
		}
	})
	job, _ := runningJob(t, h, mockJob(structs.JobTypeSystem, 1))
	next := h.updateJob(job, func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Driver = "raw_exec" })
	h.process(mockEval(next, structs.EvalTriggerJobRegister))
	live := h.liveAllocs(next)
	must.SliceLen(t, 1, live)
	must.Eq(t, next.Version, live[0].Job.Version)
	must.MapEmpty(t, h.lastUpdate().FailedTGAllocs)
}

func TestAllocResources(t *testing.T) {
	job := mockJob(structs.JobTypeBatch, 1)
	cases := []struct {
		name  string
		alloc *structs.Allocation
		want  resources
	}{
		{"summed", &structs.Allocation{Resources: &structs.Resources{CPU: 1, MemoryMB: 2, DiskMB: 3, Cores: 1}}, resources{cpu: 1, memoryMB: 2, diskMB: 3, cores: 1}},
		{"per task", &structs.Allocation{TaskResources: map[string]*structs.Resources{
			"a": {CPU: 10, MemoryMB: 20}, "b": {CPU: 1, MemoryMB: 2},
		}}, resources{cpu: 11, memoryMB: 22}},
		{"from the job", &structs.Allocation{Job: job, TaskGroup: "g"}, resources{cpu: 500, memoryMB: 256}},
		{"nothing", &structs.Allocation{}, resources{}},
	}
	for _, tc := range cases {
		must.Eq(t, tc.want, allocResources(tc.alloc), must.Sprint(tc.name))
	}
}

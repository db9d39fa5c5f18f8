package nomad

import (
	"errors"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

// runningDesignJob starts a server with n nodes, registers the DESIGN.md
// job and waits until its allocation is placed. It returns the server, the
// stored job and its allocation.
func runningDesignJob(t *testing.T, n int) (*Server, *structs.Job, *structs.Allocation) {
	t.Helper()
	s := startServer(t, testConfig(t, "dev"))
	waitForLeader(t, s)
	registerNodes(t, s, n)
	resp := mustRegister(t, s, designJob())
	waitfor.True(t, "the evaluation to complete", func() bool {
		return evalStatus(t, s, resp.EvalID) == structs.EvalStatusComplete
	})
	allocs := liveAllocs(t, s, "maxrun")
	must.Len(t, 1, allocs)
	job, err := s.State().JobByID(nil, structs.DefaultNamespace, "maxrun")
	must.NoError(t, err)
	return s, job, allocs[0]
}

func mustPlan(t *testing.T, s *Server, job *structs.Job) *JobPlanResponse {
	t.Helper()
	resp, err := s.PlanJob(testCtx(t), &JobPlanRequest{Job: job, Diff: true})
	must.NoError(t, err)
	must.NotNil(t, resp.DesiredTGUpdates)
	return resp
}

// resubmitted is a change of the stored job as a user would submit it:
// without the fields the server sets.
func resubmitted(stored *structs.Job, change func(j *structs.Job)) *structs.Job {
	j := stored.Copy()
	j.Version, j.Status, j.StatusDescription, j.SubmitTime, j.Stable = 0, "", "", 0, false
	j.CreateIndex, j.ModifyIndex, j.JobModifyIndex = 0, 0, 0
	change(j)
	j.Canonicalize()
	return j
}

func TestPlanJob_maxRunDurationChangeIsInPlace(t *testing.T) {
	s, stored, alloc := runningDesignJob(t, 2)
	before, err := s.State().LatestIndex()
	must.NoError(t, err)

	resp := mustPlan(t, s, resubmitted(stored, func(j *structs.Job) {
		j.TaskGroups[0].MaxRunDuration = new(30 * time.Second)
	}))

	must.Eq(t, &structs.DesiredUpdates{InPlaceUpdate: 1}, resp.DesiredTGUpdates["maxrun"])
	must.MapEmpty(t, resp.FailedTGAllocs)
	must.SliceEmpty(t, resp.CreatedEvals)
	must.Eq(t, stored.JobModifyIndex, resp.JobModifyIndex)
	must.True(t, resp.NextPeriodicLaunch.IsZero())

	d := resp.Diff
	must.Eq(t, structs.DiffTypeEdited, d.Type)
	tg := d.TaskGroups[0]
	must.Eq(t, structs.DiffTypeEdited, tg.Type)
	must.Eq(t, []*structs.FieldDiff{{Type: structs.DiffTypeEdited, Name: "MaxRunDuration", Old: "10000000000", New: "30000000000"}}, tg.Fields)
	must.Eq(t, map[string]uint64{structs.UpdateTypeInPlaceUpdate: 1}, tg.Updates)
	for _, task := range tg.Tasks {
		must.Eq(t, structs.DiffTypeNone, task.Type)
		must.SliceEmpty(t, task.Annotations)
	}

	// A dry run writes nothing.
	after, err := s.State().LatestIndex()
	must.NoError(t, err)
	must.Eq(t, before, after)
	again, err := s.State().JobByID(nil, structs.DefaultNamespace, "maxrun")
	must.NoError(t, err)
	must.Eq(t, stored.Version, again.Version)
	must.Eq(t, 10*time.Second, *again.TaskGroups[0].MaxRunDuration)
	live := liveAllocs(t, s, "maxrun")
	must.Len(t, 1, live)
	must.Eq(t, alloc.ID, live[0].ID)
	must.Eq(t, stored.Version, live[0].Job.Version)
}

func TestPlanJob_taskConfigChangeIsDestructive(t *testing.T) {
	s, stored, _ := runningDesignJob(t, 2)
	resp := mustPlan(t, s, resubmitted(stored, func(j *structs.Job) {
		j.TaskGroups[0].Tasks[0].Config["args"] = []any{"5m"}
	}))

	must.Eq(t, &structs.DesiredUpdates{DestructiveUpdate: 1}, resp.DesiredTGUpdates["maxrun"])
	tg := resp.Diff.TaskGroups[0]
	must.Eq(t, map[string]uint64{structs.UpdateTypeDestructiveUpdate: 1}, tg.Updates)
	must.Eq(t, "maxrun", tg.Tasks[0].Name)
	must.Eq(t, structs.DiffTypeEdited, tg.Tasks[0].Type)
	must.Eq(t, []string{structs.AnnotationForcesDestructiveUpdate}, tg.Tasks[0].Annotations)
	must.SliceEmpty(t, tg.Tasks[1].Annotations)
}

func TestPlanJob_inPlaceTaskChangeIsAnnotated(t *testing.T) {
	s, stored, _ := runningDesignJob(t, 1)
	resp := mustPlan(t, s, resubmitted(stored, func(j *structs.Job) {
		j.TaskGroups[0].Tasks[1].KillTimeout = 20 * time.Second
	}))
	must.Eq(t, &structs.DesiredUpdates{InPlaceUpdate: 1}, resp.DesiredTGUpdates["maxrun"])
	task := resp.Diff.TaskGroups[0].Tasks[1]
	must.Eq(t, "maxrun2", task.Name)
	must.Eq(t, []string{structs.AnnotationForcesInPlaceUpdate}, task.Annotations)
}

// A change that keeps max_run_duration's in-place update but makes the
// allocation's node infeasible cannot be applied where it runs.
func TestPlanJob_infeasibleNodeIsNotInPlace(t *testing.T) {
	s, stored, alloc := runningDesignJob(t, 2)
	resp := mustPlan(t, s, resubmitted(stored, func(j *structs.Job) {
		j.TaskGroups[0].MaxRunDuration = new(30 * time.Second)
		j.TaskGroups[0].Constraints = []*structs.Constraint{{LTarget: "${node.unique.id}", RTarget: alloc.NodeID, Operand: "!="}}
	}))
	u := resp.DesiredTGUpdates["maxrun"]
	must.Eq(t, &structs.DesiredUpdates{DestructiveUpdate: 1}, u)
	must.MapEmpty(t, resp.FailedTGAllocs)
	tg := resp.Diff.TaskGroups[0]
	must.Eq(t, "Constraint", tg.Objects[0].Name)
	must.Eq(t, structs.DiffTypeAdded, tg.Objects[0].Type)
}

func TestPlanJob_noFeasibleNodeReportsFailedPlacement(t *testing.T) {
	s, stored, alloc := runningDesignJob(t, 1)
	resp := mustPlan(t, s, resubmitted(stored, func(j *structs.Job) {
		j.TaskGroups[0].Constraints = []*structs.Constraint{{LTarget: "${node.unique.id}", RTarget: alloc.NodeID, Operand: "!="}}
	}))
	must.Eq(t, 0, resp.DesiredTGUpdates["maxrun"].InPlaceUpdate)
	metric := resp.FailedTGAllocs["maxrun"]
	must.NotNil(t, metric)
	must.Positive(t, metric.ConstraintFiltered[`${node.unique.id} != `+alloc.NodeID])
	must.Len(t, 1, resp.CreatedEvals)
	must.Eq(t, structs.EvalStatusBlocked, resp.CreatedEvals[0].Status)

	evals, err := s.State().EvalsByJob(nil, structs.DefaultNamespace, "maxrun")
	must.NoError(t, err)
	for _, e := range evals {
		must.NotEq(t, resp.CreatedEvals[0].ID, e.ID, must.Sprint("the blocked evaluation is not stored"))
	}
}

func TestPlanJob_unchangedJobIgnoresItsAllocs(t *testing.T) {
	s, stored, _ := runningDesignJob(t, 1)
	resp := mustPlan(t, s, resubmitted(stored, func(*structs.Job) {}))
	must.Eq(t, &structs.DesiredUpdates{Ignore: 1}, resp.DesiredTGUpdates["maxrun"])
	must.Eq(t, structs.DiffTypeNone, resp.Diff.Type)
	must.Eq(t, map[string]uint64{structs.UpdateTypeIgnore: 1}, resp.Diff.TaskGroups[0].Updates)
	must.Eq(t, stored.JobModifyIndex, resp.JobModifyIndex)
}

func TestPlanJob_countChange(t *testing.T) {
	s, stored, _ := runningDesignJob(t, 2)
	resp := mustPlan(t, s, resubmitted(stored, func(j *structs.Job) { j.TaskGroups[0].Count = 3 }))
	// The existing allocation moves to the new version in place.
	must.Eq(t, &structs.DesiredUpdates{Place: 2, InPlaceUpdate: 1}, resp.DesiredTGUpdates["maxrun"])
	count := resp.Diff.TaskGroups[0].Fields[0]
	must.Eq(t, "Count", count.Name)
	must.Eq(t, []string{structs.AnnotationForcesCreate}, count.Annotations)
}

func TestPlanJob_newJob(t *testing.T) {
	s := startServer(t, testConfig(t, "dev"))
	waitForLeader(t, s)
	registerNodes(t, s, 2)
	job := testJob("fresh")
	job.TaskGroups[0].Count = 2

	resp := mustPlan(t, s, job)
	must.Eq(t, uint64(0), resp.JobModifyIndex)
	must.Eq(t, &structs.DesiredUpdates{Place: 2}, resp.DesiredTGUpdates["group"])
	must.Eq(t, structs.DiffTypeAdded, resp.Diff.Type)
	tg := resp.Diff.TaskGroups[0]
	must.Eq(t, structs.DiffTypeAdded, tg.Type)
	must.Eq(t, map[string]uint64{structs.UpdateTypeCreate: 2}, tg.Updates)
	must.Eq(t, []string{structs.AnnotationForcesCreate}, tg.Tasks[0].Annotations)

	stored, err := s.State().JobByID(nil, structs.DefaultNamespace, "fresh")
	must.NoError(t, err)
	must.Nil(t, stored)
}

func TestPlanJob_withoutDiff(t *testing.T) {
	s := startServer(t, testConfig(t, "dev"))
	waitForLeader(t, s)
	resp, err := s.PlanJob(testCtx(t), &JobPlanRequest{Job: testJob("nodiff")})
	must.NoError(t, err)
	must.Nil(t, resp.Diff)
	// No node: the placement fails.
	must.MapContainsKey(t, resp.FailedTGAllocs, "group")
}

func TestPlanJob_periodicJobReportsNextLaunch(t *testing.T) {
	s := startServer(t, testConfig(t, "dev"))
	waitForLeader(t, s)
	registerNodes(t, s, 1)
	start := time.Now()
	resp := mustPlan(t, s, testPeriodicJob("cron"))
	must.True(t, resp.NextPeriodicLaunch.After(start))
	must.True(t, resp.NextPeriodicLaunch.Before(start.Add(6*time.Minute)))
	must.Eq(t, &structs.DesiredUpdates{}, resp.DesiredTGUpdates["group"], must.Sprint("a periodic parent runs nothing itself"))
}

func TestPlanJob_validatesLikeRegister(t *testing.T) {
	s := startServer(t, testConfig(t, "dev"))
	waitForLeader(t, s)

	service := designJob()
	service.Type = structs.JobTypeService
	service.Canonicalize()
	_, err := s.PlanJob(testCtx(t), &JobPlanRequest{Job: service, Diff: true})
	must.ErrorIs(t, err, ErrInvalidRequest)
	must.ErrorContains(t, err, `Task group "maxrun"`)
	must.ErrorContains(t, err, "max_run_duration")
	var verr *structs.ValidationError
	must.True(t, errors.As(err, &verr))

	_, err = s.PlanJob(testCtx(t), &JobPlanRequest{})
	must.ErrorIs(t, err, ErrInvalidRequest)
}

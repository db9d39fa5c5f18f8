package nomad

import (
	"math"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/structs"
)

// maxRunAllocOnServer registers a batch job whose group has the given
// max_run_duration (nil: none) and writes one running allocation of it,
// created at created; nothing is scheduled.
func maxRunAllocOnServer(t *testing.T, s *Server, jobType string, budget *time.Duration, created time.Time) *structs.Allocation {
	t.Helper()
	job := testJob("bounded")
	job.Type = jobType
	job.TaskGroups[0].MaxRunDuration = budget
	job.Canonicalize()
	_, err := s.RegisterJob(testCtx(t), &JobRegisterRequest{Job: job})
	must.NoError(t, err)
	stored, err := s.State().JobByID(nil, structs.DefaultNamespace, "bounded")
	must.NoError(t, err)
	alloc := testAlloc(stored, "node-1")
	alloc.CreateTime = created.UnixNano()
	_, err = s.Apply(testCtx(t), logentry.MsgAllocUpdate, &logentry.AllocUpdate{Allocs: []*structs.Allocation{alloc}})
	must.NoError(t, err)
	return alloc
}

func TestServer_AllocSetMaxRunDuration(t *testing.T) {
	s := startServer(t, unscheduledConfig(t, "dev"))
	waitForLeader(t, s)
	ctx := testCtx(t)
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	alloc := maxRunAllocOnServer(t, s, structs.JobTypeBatch, new(time.Hour), created)
	before, err := s.State().AllocByID(nil, alloc.ID)
	must.NoError(t, err)

	for _, budget := range []time.Duration{2 * time.Hour, 10 * time.Minute} {
		resp, err := s.AllocSetMaxRunDuration(ctx, alloc.ID, budget)
		must.NoError(t, err)
		must.Eq(t, structs.MaxRunScopeAllocation, resp.MaxRun.Scope)
		must.Eq(t, budget, resp.MaxRun.Budget)
		must.True(t, resp.MaxRun.Deadline.Equal(created.Add(budget)), must.Sprint("on the same anchor"))

		stored, err := s.State().AllocByID(nil, alloc.ID)
		must.NoError(t, err)
		must.Eq(t, &structs.MaxRunOverride{Budget: budget, Replaces: time.Hour}, stored.MaxRunOverride)
		must.Eq(t, resp.MaxRun, stored.MaxRun())
		must.Eq(t, resp.Index, stored.AllocModifyIndex, must.Sprint("the client sees the change"))
		must.Greater(t, before.AllocModifyIndex, stored.AllocModifyIndex)
		must.Eq(t, before.CreateTime, stored.CreateTime)
		must.Eq(t, before.ClientStatus, stored.ClientStatus)
	}

	cases := []struct {
		name   string
		id     string
		budget time.Duration
		want   error
	}{
		{name: "unknown allocation", id: "missing", budget: time.Hour, want: ErrNotFound},
		{name: "zero budget", id: alloc.ID, budget: 0, want: ErrInvalidRequest},
		{name: "negative budget", id: alloc.ID, budget: -time.Second, want: ErrInvalidRequest},
		{name: "beyond 2262", id: alloc.ID, budget: time.Duration(math.MaxInt64), want: ErrInvalidRequest},
		{name: "no ID", budget: time.Hour, want: ErrInvalidRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.AllocSetMaxRunDuration(ctx, tc.id, tc.budget)
			must.ErrorIs(t, err, tc.want)
		})
	}
}

func TestServer_AllocSetMaxRunDurationRefusals(t *testing.T) {
	s := startServer(t, unscheduledConfig(t, "dev"))
	waitForLeader(t, s)
	ctx := testCtx(t)

	// A group without a limit gets one.
	alloc := maxRunAllocOnServer(t, s, structs.JobTypeBatch, nil, time.Now())
	resp, err := s.AllocSetMaxRunDuration(ctx, alloc.ID, time.Hour)
	must.NoError(t, err)
	must.Eq(t, time.Hour, resp.MaxRun.Budget)

	// An allocation that has ended cannot.
	_, err = s.UpdateAllocsFromClient(ctx, []*structs.Allocation{{ID: alloc.ID, ClientStatus: structs.AllocClientStatusComplete}})
	must.NoError(t, err)
	_, err = s.AllocSetMaxRunDuration(ctx, alloc.ID, 2*time.Hour)
	must.ErrorIs(t, err, ErrInvalidRequest)
	must.ErrorContains(t, err, "has ended")
}

func TestServer_AllocSetMaxRunDurationServiceJob(t *testing.T) {
	s := startServer(t, unscheduledConfig(t, "dev"))
	waitForLeader(t, s)
	alloc := maxRunAllocOnServer(t, s, structs.JobTypeService, nil, time.Now())
	_, err := s.AllocSetMaxRunDuration(testCtx(t), alloc.ID, time.Hour)
	must.ErrorIs(t, err, ErrInvalidRequest)
	must.ErrorContains(t, err, `job type "service" does not allow max_run_duration`)
}

// TestServer_AllocMaxRunOverrideAndJobUpdates: a plan that updates the
// allocation in place keeps the change while the group's limit stays, and
// drops it for good once a job version changes it.
func TestServer_AllocMaxRunOverrideAndJobUpdates(t *testing.T) {
	s := startServer(t, unscheduledConfig(t, "dev"))
	waitForLeader(t, s)
	ctx := testCtx(t)
	alloc := maxRunAllocOnServer(t, s, structs.JobTypeBatch, new(time.Hour), time.Now())
	_, err := s.AllocSetMaxRunDuration(ctx, alloc.ID, 3*time.Hour)
	must.NoError(t, err)

	// updateInPlace registers the job with change applied and writes the
	// allocation as a plan's in-place update does: a copy from before
	// the change of budget, with the new job version.
	updateInPlace := func(change func(*structs.Job)) *structs.Allocation {
		t.Helper()
		job, err := s.State().JobByID(nil, structs.DefaultNamespace, "bounded")
		must.NoError(t, err)
		next := job.Copy()
		change(next)
		_, err = s.RegisterJob(ctx, &JobRegisterRequest{Job: next})
		must.NoError(t, err)
		stored, err := s.State().JobByID(nil, structs.DefaultNamespace, "bounded")
		must.NoError(t, err)
		planned := alloc.Copy()
		planned.Job = stored
		_, err = s.Apply(ctx, logentry.MsgAllocUpdate, &logentry.AllocUpdate{Allocs: []*structs.Allocation{planned}})
		must.NoError(t, err)
		got, err := s.State().AllocByID(nil, alloc.ID)
		must.NoError(t, err)
		return got
	}

	kept := updateInPlace(func(j *structs.Job) { j.Meta = map[string]string{"v": "2"} })
	must.Eq(t, 3*time.Hour, kept.MaxRun().Budget, must.Sprint("a version that keeps the group's limit keeps the change"))
	must.NotNil(t, kept.MaxRunOverride)

	replaced := updateInPlace(func(j *structs.Job) { j.TaskGroups[0].MaxRunDuration = new(2 * time.Hour) })
	must.Nil(t, replaced.MaxRunOverride)
	must.Eq(t, 2*time.Hour, replaced.MaxRun().Budget)

	back := updateInPlace(func(j *structs.Job) { j.TaskGroups[0].MaxRunDuration = new(time.Hour) })
	must.Nil(t, back.MaxRunOverride, must.Sprint("a replaced change does not come back"))
	must.Eq(t, time.Hour, back.MaxRun().Budget)
}

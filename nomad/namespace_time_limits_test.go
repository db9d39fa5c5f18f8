package nomad

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/nomad/periodic"
	"github.com/drover-io/drover/structs"
)

// A namespace's time limits: a default for groups without a budget,
// a ceiling that refuses registrations and dispatches past it naming
// both values, and a ceiling on how far alloc deadline moves a budget.
func TestServer_NamespaceTimeLimits(t *testing.T) {
	s := startServer(t, unscheduledConfig(t, "dev"))
	waitForLeader(t, s)
	ctx := testCtx(t)
	_, err := s.UpsertNamespaces(ctx, &NamespaceUpsertRequest{Namespaces: []*structs.Namespace{{
		Name: "limited",
		TimeLimits: &structs.NamespaceTimeLimits{
			MaxRunDurationDefault:     time.Hour,
			MaxRunDurationMax:         2 * time.Hour,
			AllocDeadlineExtensionMax: 30 * time.Minute,
		},
	}}})
	must.NoError(t, err)

	limited := func(id string) *structs.Job {
		job := testJob(id)
		job.Namespace = "limited"
		job.Canonicalize()
		return job
	}

	t.Run("default applied", func(t *testing.T) {
		mustRegister(t, s, limited("plain"))
		stored, err := s.State().JobByID(nil, "limited", "plain")
		must.NoError(t, err)
		must.Eq(t, time.Hour, *stored.TaskGroups[0].MaxRunDuration)
	})
	t.Run("past the ceiling refused, naming both", func(t *testing.T) {
		job := limited("long")
		job.MaxRunDuration = new(3 * time.Hour)
		_, err := s.RegisterJob(ctx, &JobRegisterRequest{Job: job})
		must.ErrorIs(t, err, ErrInvalidRequest)
		must.StrContains(t, err.Error(), `Job max_run_duration 3h0m0s exceeds namespace "limited"'s ceiling of 2h0m0s`)
		stored, err := s.State().JobByID(nil, "limited", "long")
		must.NoError(t, err)
		must.Nil(t, stored)
	})
	t.Run("at the ceiling accepted", func(t *testing.T) {
		job := limited("edge")
		job.TaskGroups[0].MaxRunDuration = new(2 * time.Hour)
		mustRegister(t, s, job)
	})
	t.Run("dispatch past the ceiling refused", func(t *testing.T) {
		parent := limited("param")
		parent.ParameterizedJob = &structs.ParameterizedJobConfig{Payload: structs.DispatchPayloadOptional}
		mustRegister(t, s, parent)
		_, err := s.DispatchJob(ctx, &JobDispatchRequest{Namespace: "limited", JobID: "param", MaxRunDuration: new(5 * time.Hour)})
		must.ErrorIs(t, err, ErrInvalidRequest)
		must.StrContains(t, err.Error(), `max_run_duration 5h0m0s exceeds namespace "limited"'s ceiling of 2h0m0s`)
		_, err = s.DispatchJob(ctx, &JobDispatchRequest{Namespace: "limited", JobID: "param", MaxRunDuration: new(90 * time.Minute)})
		must.NoError(t, err)
	})
	t.Run("alloc deadline moved past the ceiling refused", func(t *testing.T) {
		stored, err := s.State().JobByID(nil, "limited", "plain")
		must.NoError(t, err)
		alloc := testAlloc(stored, "node-1")
		alloc.CreateTime = time.Now().UnixNano()
		_, err = s.Apply(ctx, logentry.MsgAllocUpdate, &logentry.AllocUpdate{Allocs: []*structs.Allocation{alloc}})
		must.NoError(t, err)
		_, err = s.AllocSetMaxRunDuration(ctx, alloc.ID, 90*time.Minute+time.Second)
		must.ErrorIs(t, err, ErrInvalidRequest)
		must.StrContains(t, err.Error(), `moves the deadline 30m1s past the group's 1h0m0s; namespace "limited" allows at most 30m0s`)
		resp, err := s.AllocSetMaxRunDuration(ctx, alloc.ID, 90*time.Minute)
		must.NoError(t, err)
		must.Eq(t, 90*time.Minute, resp.MaxRun.Budget)
	})
}

// A periodic job's deadline after each launch becomes the child's instant.
func TestPeriodicChild_deadlineAfterLaunch(t *testing.T) {
	parent := testPeriodicJob("nightly")
	parent.Deadline = &structs.JobDeadline{AfterLaunch: 2 * time.Hour}
	launch := time.Date(2026, 12, 8, 1, 0, 0, 0, time.UTC)
	child := periodic.DeriveChild(parent, launch, launch.UnixNano())
	must.Eq(t, &structs.JobDeadline{At: launch.Add(2 * time.Hour).UnixNano()}, child.Deadline)
	must.Eq(t, &structs.JobDeadline{AfterLaunch: 2 * time.Hour}, parent.Deadline, must.Sprint("the parent keeps its duration"))
	must.NoError(t, child.Validate())
}

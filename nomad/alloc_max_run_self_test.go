package nomad

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/nomad/auth"
	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/structs"
)

// TestServer_AllocSetMaxRunDurationSelf: a task's workload identity moves
// its own allocation's deadline up to the group's max_run_duration plus
// max_run_extension, is refused past it with both values named, and is
// refused for another allocation, even one of its own job.
func TestServer_AllocSetMaxRunDurationSelf(t *testing.T) {
	s := startServer(t, unscheduledConfig(t, "dev"))
	waitForLeader(t, s)
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

	job := testJob("bounded")
	job.Type = structs.JobTypeBatch
	job.TaskGroups[0].MaxRunDuration = new(time.Hour)
	job.MaxRunExtension = new(30 * time.Minute)
	job.Canonicalize()
	_, err := s.RegisterJob(testCtx(t), &JobRegisterRequest{Job: job})
	must.NoError(t, err)
	stored, err := s.State().JobByID(nil, structs.DefaultNamespace, "bounded")
	must.NoError(t, err)
	must.Eq(t, 30*time.Minute, stored.TaskGroups[0].MaxRunExtensionLimit(), must.Sprint("the job's extension is the group's"))
	own, other := testAlloc(stored, "node-1"), testAlloc(stored, "node-1")
	own.CreateTime, other.CreateTime = created.UnixNano(), created.UnixNano()
	_, err = s.Apply(testCtx(t), logentry.MsgAllocUpdate, &logentry.AllocUpdate{Allocs: []*structs.Allocation{own, other}})
	must.NoError(t, err)

	task := stored.TaskGroups[0].Tasks[0].Name
	ctx := auth.WithCaller(testCtx(t), acl.NewWorkload(acl.Workload{
		Namespace: own.Namespace, JobID: own.JobID, AllocationID: own.ID, TaskGroup: own.TaskGroup, Task: task,
	}))

	for _, budget := range []time.Duration{time.Hour + 10*time.Minute, time.Hour + 30*time.Minute, 20 * time.Minute} {
		resp, err := s.AllocSetMaxRunDuration(ctx, own.ID, budget)
		must.NoError(t, err, must.Sprintf("budget %s", budget))
		must.Eq(t, budget, resp.MaxRun.Budget)
		must.True(t, resp.MaxRun.Deadline.Equal(created.Add(budget)))
	}

	_, err = s.AllocSetMaxRunDuration(ctx, own.ID, time.Hour+30*time.Minute+time.Nanosecond)
	must.ErrorIs(t, err, ErrPermissionDenied)
	must.StrContains(t, err.Error(), "max_run_duration 1h0m0s")
	must.StrContains(t, err.Error(), "max_run_extension 30m0s")
	got, err := s.State().AllocByID(nil, own.ID)
	must.NoError(t, err)
	must.Eq(t, 20*time.Minute, got.MaxRunOverride.Budget, must.Sprint("a refused change changes nothing"))

	_, err = s.AllocSetMaxRunDuration(ctx, other.ID, time.Hour+time.Minute)
	must.ErrorIs(t, err, ErrPermissionDenied)
	must.StrContains(t, err.Error(), "only its own allocation")
	got, err = s.State().AllocByID(nil, other.ID)
	must.NoError(t, err)
	must.Nil(t, got.MaxRunOverride)

	_, err = s.AllocSetMaxRunDuration(ctx, "missing", time.Hour)
	must.ErrorIs(t, err, ErrPermissionDenied)

	// The operator is bound by neither.
	resp, err := s.AllocSetMaxRunDuration(testCtx(t), other.ID, 10*time.Hour)
	must.NoError(t, err)
	must.Eq(t, 10*time.Hour, resp.MaxRun.Budget)
}

func TestAllocation_CheckSelfMaxRun(t *testing.T) {
	alloc := func(budget, extension *time.Duration) *structs.Allocation {
		job := testJob("j")
		job.Type = structs.JobTypeBatch
		job.TaskGroups[0].MaxRunDuration = budget
		job.TaskGroups[0].MaxRunExtension = extension
		return testAlloc(job, "node-1")
	}
	cases := []struct {
		name              string
		budget, extension *time.Duration
		ask               time.Duration
		wantErr           string
	}{
		{name: "within", budget: new(time.Hour), extension: new(time.Minute), ask: time.Hour + time.Minute},
		{name: "shorter without extension", budget: new(time.Hour), ask: time.Minute},
		{name: "past", budget: new(time.Hour), extension: new(time.Minute), ask: time.Hour + time.Minute + 1,
			wantErr: "max_run_duration 1h1m0.000000001s is 1m0.000000001s beyond the group's max_run_duration 1h0m0s, past its max_run_extension 1m0s (at most 1h1m0s)"},
		{name: "no extension", budget: new(time.Hour), ask: 2 * time.Hour, wantErr: "sets no max_run_extension"},
		{name: "no budget", extension: new(time.Hour), ask: time.Hour, wantErr: "has no max_run_duration"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := alloc(tc.budget, tc.extension).CheckSelfMaxRun(tc.ask)
			if tc.wantErr == "" {
				must.NoError(t, err)
				return
			}
			must.ErrorContains(t, err, tc.wantErr)
		})
	}
}

package nomad

import (
	"regexp"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

// parameterizedJobOf is a parameterized batch job with cfg whose task
// gets the payload in in.json.
func parameterizedJobOf(id string, cfg *structs.ParameterizedJobConfig) *structs.Job {
	job := testJob(id)
	job.ParameterizedJob = cfg
	job.Meta = map[string]string{"team": "infra", "email": "default@example.com"}
	job.TaskGroups[0].Tasks[0].DispatchPayload = &structs.DispatchPayloadConfig{File: "in.json"}
	job.Canonicalize()
	return job
}

func TestDispatch_createsARunningChild(t *testing.T) {
	s := startServer(t, testConfig(t, "dev"))
	waitForLeader(t, s)
	ctx := testCtx(t)
	registerNodes(t, s, 1)
	parent := parameterizedJobOf("encode", &structs.ParameterizedJobConfig{MetaRequired: []string{"email"}, MaxRunDurationMax: new(time.Hour)})
	resp := mustRegister(t, s, parent)
	must.Eq(t, "", resp.EvalID, must.Sprint("a parameterized job is never evaluated itself"))
	waitfor.True(t, "the parent to be running", func() bool { return jobStatus(t, s, "encode") == structs.JobStatusRunning })

	before := time.Now().Unix()
	d, err := s.DispatchJob(ctx, &JobDispatchRequest{
		Namespace: structs.DefaultNamespace, JobID: "encode",
		Payload: []byte(`{"n":1}`), Meta: map[string]string{"email": "me@example.com"},
		Priority: 70, MaxRunDuration: new(30 * time.Second),
	})
	must.NoError(t, err)
	must.RegexMatch(t, regexp.MustCompile(`^encode/dispatch-\d+-[0-9a-f]{8}$`), d.DispatchedJobID)
	must.NotEq(t, "", d.EvalID)
	must.Positive(t, d.JobCreateIndex)

	child, err := s.State().JobByID(nil, structs.DefaultNamespace, d.DispatchedJobID)
	must.NoError(t, err)
	must.Eq(t, "encode", child.ParentID)
	must.Eq(t, child.ID, child.Name)
	must.True(t, child.Dispatched)
	must.False(t, child.IsParameterized())
	must.Eq(t, `{"n":1}`, string(child.Payload))
	must.Eq(t, map[string]string{"team": "infra", "email": "me@example.com"}, child.Meta)
	must.Eq(t, 70, child.Priority)
	must.Eq(t, 30*time.Second, *child.DispatchMaxRunDuration)
	must.Eq(t, 30*time.Second, *child.TaskGroups[0].MaxRunDuration)
	must.GreaterEq(t, before, child.SubmitTime/int64(time.Second))

	waitfor.True(t, "the child to be placed", func() bool { return len(liveAllocs(t, s, child.ID)) == 1 })
	must.SliceEmpty(t, liveAllocs(t, s, "encode"), must.Sprint("the parent is never placed"))
	alloc := liveAllocs(t, s, child.ID)[0]
	must.Eq(t, structs.MaxRunScopeDispatch, alloc.MaxRun().Scope)

	summary, err := s.State().JobSummaryByID(nil, structs.DefaultNamespace, "encode")
	must.NoError(t, err)
	must.NotNil(t, summary.Children)
	must.Eq(t, int64(1), summary.Children.Pending+summary.Children.Running+summary.Children.Dead)

	// A plain dispatch keeps the groups' own max_run_duration.
	d2, err := s.DispatchJob(ctx, &JobDispatchRequest{Namespace: structs.DefaultNamespace, JobID: "encode", Meta: map[string]string{"email": "x"}, IDPrefixTemplate: "nightly"})
	must.NoError(t, err)
	must.RegexMatch(t, regexp.MustCompile(`^encode/dispatch-nightly-\d+-[0-9a-f]{8}$`), d2.DispatchedJobID)
	child2, err := s.State().JobByID(nil, structs.DefaultNamespace, d2.DispatchedJobID)
	must.NoError(t, err)
	must.Nil(t, child2.DispatchMaxRunDuration)
	must.Nil(t, child2.TaskGroups[0].MaxRunDuration)
}

func TestDispatch_idempotencyToken(t *testing.T) {
	s := startServer(t, unscheduledConfig(t, "dev"))
	waitForLeader(t, s)
	ctx := testCtx(t)
	mustRegister(t, s, parameterizedJobOf("p", &structs.ParameterizedJobConfig{}))
	req := &JobDispatchRequest{Namespace: structs.DefaultNamespace, JobID: "p", IdempotencyToken: "once"}
	first, err := s.DispatchJob(ctx, req)
	must.NoError(t, err)
	again, err := s.DispatchJob(ctx, req)
	must.NoError(t, err)
	must.Eq(t, first.DispatchedJobID, again.DispatchedJobID)
	must.Eq(t, "", again.EvalID, must.Sprint("nothing new is evaluated"))
	must.Eq(t, first.JobCreateIndex, again.JobCreateIndex)

	other, err := s.DispatchJob(ctx, &JobDispatchRequest{Namespace: structs.DefaultNamespace, JobID: "p", IdempotencyToken: "twice"})
	must.NoError(t, err)
	must.NotEq(t, first.DispatchedJobID, other.DispatchedJobID)
	plain, err := s.DispatchJob(ctx, &JobDispatchRequest{Namespace: structs.DefaultNamespace, JobID: "p"})
	must.NoError(t, err)
	must.NotEq(t, first.DispatchedJobID, plain.DispatchedJobID)
	must.Len(t, 3, children(t, s, "p"))
}

func TestDispatch_refusals(t *testing.T) {
	s := startServer(t, unscheduledConfig(t, "dev"))
	waitForLeader(t, s)
	ctx := testCtx(t)
	mustRegister(t, s, parameterizedJobOf("p", &structs.ParameterizedJobConfig{Payload: structs.DispatchPayloadRequired, MetaRequired: []string{"k"}}))
	mustRegister(t, s, testJob("plain"))
	dispatch := func(id string, payload []byte, meta map[string]string) error {
		_, err := s.DispatchJob(ctx, &JobDispatchRequest{Namespace: structs.DefaultNamespace, JobID: id, Payload: payload, Meta: meta})
		return err
	}

	err := dispatch("missing", nil, nil)
	must.ErrorIs(t, err, ErrNotFound)
	err = dispatch("plain", nil, nil)
	must.ErrorIs(t, err, ErrInvalidRequest)
	must.ErrorContains(t, err, `Job "plain" is not a parameterized job`)
	err = dispatch("p", nil, map[string]string{"x": "1"})
	must.ErrorIs(t, err, ErrInvalidRequest)
	must.ErrorContains(t, err, "requires a payload")
	must.ErrorContains(t, err, `missing required key "k"`)
	must.ErrorContains(t, err, `key "x" is not allowed`)
	err = dispatch("p", make([]byte, structs.DispatchPayloadSizeLimit+1), map[string]string{"k": "v"})
	must.ErrorContains(t, err, "more than the limit of 16384 (16 KiB)")
	_, err = s.DispatchJob(ctx, &JobDispatchRequest{Namespace: structs.DefaultNamespace, JobID: "p", Payload: []byte("x"), Meta: map[string]string{"k": "v"}, Priority: 101})
	must.ErrorContains(t, err, "priority must be 1 to 100")
	must.SliceEmpty(t, children(t, s, "p"))

	// A stopped parent is refused, as in Nomad.
	_, err = s.DeregisterJob(ctx, &JobDeregisterRequest{Namespace: structs.DefaultNamespace, JobID: "p"})
	must.NoError(t, err)
	err = dispatch("p", []byte("x"), map[string]string{"k": "v"})
	must.ErrorIs(t, err, ErrInvalidRequest)
	must.ErrorContains(t, err, "stopped")

	// A job registered as dispatched is refused: only a dispatch makes one.
	forged := testJob("p/dispatch-1-00000000")
	forged.ParentID, forged.Dispatched = "p", true
	_, err = s.RegisterJob(ctx, &JobRegisterRequest{Job: forged})
	must.ErrorIs(t, err, ErrInvalidRequest)
	must.ErrorContains(t, err, "Dispatched set")
}

func TestDispatch_needsDispatchJob(t *testing.T) {
	s, mgmt := aclServer(t)
	_, err := s.RegisterJob(callerCtx(t, s, mgmt.SecretID), &JobRegisterRequest{Job: parameterizedJobOf("p", &structs.ParameterizedJobConfig{})})
	must.NoError(t, err)
	req := func() *JobDispatchRequest {
		return &JobDispatchRequest{Namespace: structs.DefaultNamespace, JobID: "p"}
	}

	reader := clientToken(t, s, "reader", `namespace "default" { policy = "read" }`)
	_, err = s.DispatchJob(callerCtx(t, s, reader.SecretID), req())
	must.ErrorIs(t, err, ErrPermissionDenied)
	must.ErrorContains(t, err, "dispatch-job")
	other := clientToken(t, s, "other-ns", `namespace "other" { capabilities = ["dispatch-job"] }`)
	_, err = s.DispatchJob(callerCtx(t, s, other.SecretID), req())
	must.ErrorIs(t, err, ErrPermissionDenied)
	must.SliceEmpty(t, children(t, s, "p"))

	dispatcher := clientToken(t, s, "dispatcher", `namespace "default" { capabilities = ["dispatch-job"] }`)
	_, err = s.DispatchJob(callerCtx(t, s, dispatcher.SecretID), req())
	must.NoError(t, err)
	writer := clientToken(t, s, "writer", `namespace "default" { policy = "write" }`)
	_, err = s.DispatchJob(callerCtx(t, s, writer.SecretID), req())
	must.NoError(t, err)
	must.Len(t, 2, children(t, s, "p"))
}

// A periodic parameterized job launches nothing until dispatched; each
// dispatched child is then periodic itself, as in Nomad.
func TestDispatch_periodicParameterized(t *testing.T) {
	s := startServer(t, testConfig(t, "dev"))
	waitForLeader(t, s)
	ctx := testCtx(t)
	registerNodes(t, s, 1)
	parent := parameterizedJobOf("sync", &structs.ParameterizedJobConfig{})
	parent.Periodic = &structs.PeriodicConfig{Enabled: true, Specs: []string{"0 3 * * *"}, SpecType: structs.PeriodicSpecCron}
	parent.Canonicalize()
	mustRegister(t, s, parent)
	_, err := s.PeriodicForce(ctx, structs.DefaultNamespace, "sync")
	must.ErrorIs(t, err, ErrInvalidRequest)
	must.ErrorContains(t, err, "parameterized")

	d, err := s.DispatchJob(ctx, &JobDispatchRequest{Namespace: structs.DefaultNamespace, JobID: "sync", Meta: map[string]string{}})
	must.NoError(t, err)
	must.Eq(t, "", d.EvalID, must.Sprint("a periodic child launches; it is not placed"))
	waitfor.True(t, "the dispatched child to be running", func() bool { return jobStatus(t, s, d.DispatchedJobID) == structs.JobStatusRunning })

	// The child launches on its schedule; forced here.
	_, err = s.PeriodicForce(ctx, structs.DefaultNamespace, d.DispatchedJobID)
	must.NoError(t, err)
	launched := children(t, s, d.DispatchedJobID)
	must.Len(t, 1, launched)
	must.StrHasPrefix(t, d.DispatchedJobID+"/periodic-", launched[0].ID)
	must.True(t, launched[0].Dispatched)
	waitfor.True(t, "the launch to be placed", func() bool { return len(liveAllocs(t, s, launched[0].ID)) == 1 })
	must.SliceEmpty(t, liveAllocs(t, s, d.DispatchedJobID))
	must.SliceEmpty(t, liveAllocs(t, s, "sync"))
}

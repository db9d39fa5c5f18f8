package nomad

import (
	"context"
	"errors"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/nomad/auth"
	"github.com/drover-io/drover/structs"
)

// TestAuthorize_aWriteWithoutACallerIsRefused: with ACLs on, a write that
// reaches a server method without the caller's identity is refused, not
// taken as the server's own; with them off, anyone may write.
func TestAuthorize_aWriteWithoutACallerIsRefused(t *testing.T) {
	s, _ := aclServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), leaderWait)
	defer cancel()
	_, err := s.RegisterJob(ctx, &JobRegisterRequest{Job: testJob("nobody")})
	must.ErrorIs(t, err, ErrPermissionDenied)
	must.ErrorContains(t, err, "no caller identity")
	_, err = s.UpsertNamespaces(ctx, &NamespaceUpsertRequest{Namespaces: []*structs.Namespace{{Name: "nobody"}}})
	must.ErrorIs(t, err, ErrPermissionDenied)

	open := startServer(t, unscheduledConfig(t, "open"))
	waitForLeader(t, open)
	ctx, cancel = context.WithTimeout(context.Background(), leaderWait)
	defer cancel()
	_, err = open.RegisterJob(ctx, &JobRegisterRequest{Job: testJob("anyone")})
	must.NoError(t, err)
}

// TestAuthorize_eachWriteChecksWhatItNeeds calls the server's user writes
// directly, as the HTTP API does, with a caller that lacks what each needs
// and with one that has it.
func TestAuthorize_eachWriteChecksWhatItNeeds(t *testing.T) {
	s, _ := aclServer(t)
	node, alloc := writeTargets(t, s)

	reader := callerWith(t, `namespace "*" { policy = "read" }
node { policy = "read" }`)
	writer := callerWith(t, `namespace "default" { policy = "write" }
node { policy = "write" }`)
	writes := []struct {
		name  string
		call  func(ctx context.Context) error
		needs *acl.ACL // a caller that may make the write
	}{
		{"plan", func(ctx context.Context) error {
			_, err := s.PlanJob(ctx, &JobPlanRequest{Job: testJob("planned")})
			return err
		}, writer},
		{"job evaluate", func(ctx context.Context) error {
			_, err := s.JobEvaluate(ctx, structs.DefaultNamespace, "existing")
			return err
		}, writer},
		{"alloc max_run_duration", func(ctx context.Context) error {
			_, err := s.AllocSetMaxRunDuration(ctx, alloc.ID, 0)
			return err
		}, writer},
		{"node evaluate", func(ctx context.Context) error {
			_, err := s.NodeEvaluate(ctx, node.ID)
			return err
		}, writer},
		{"keyring rotate", func(ctx context.Context) error {
			_, err := s.RotateRootKey(ctx, &RootKeyRotateRequest{})
			return err
		}, acl.Management()},
	}
	for _, w := range writes {
		t.Run(w.name, func(t *testing.T) {
			err := w.call(auth.WithCaller(testCtx(t), reader))
			must.ErrorIs(t, err, ErrPermissionDenied)
			err = w.call(auth.WithCaller(testCtx(t), w.needs))
			must.False(t, errors.Is(err, ErrPermissionDenied), must.Sprint(err))
		})
	}
}

// callerWith is the identity of a token of the given policy rules.
func callerWith(t *testing.T, rules string) *acl.ACL {
	t.Helper()
	policy, err := acl.Parse(rules)
	must.NoError(t, err)
	return acl.New(policy)
}

// TestRevertJob_checksTheVersionItRegisters: reverting needs what
// registering the target version needs (submit-raw-exec for a raw_exec
// task), and a caller without submit-job learns nothing of the job, not
// even whether it exists.
func TestRevertJob_checksTheVersionItRegisters(t *testing.T) {
	s, _ := aclServer(t)
	mustRegister(t, s, testJob("web")) // version 0: a raw_exec task
	v1 := testJob("web")
	v1.TaskGroups[0].Tasks[0].Driver = "mock_driver"
	v1.TaskGroups[0].Tasks[0].Config = map[string]any{"run_for": "1s"}
	mustRegister(t, s, v1)

	writer := callerWith(t, `namespace "default" { policy = "write" }`)
	raw := callerWith(t, `namespace "default" {
  policy       = "write"
  capabilities = ["submit-raw-exec"]
}`)
	reader := callerWith(t, `namespace "default" { policy = "read" }`)
	revert := func(a *acl.ACL, id string) error {
		_, err := s.RevertJob(auth.WithCaller(testCtx(t), a), &JobRevertRequest{Namespace: "default", JobID: id, JobVersion: 0})
		return err
	}

	err := revert(writer, "web")
	must.ErrorIs(t, err, ErrPermissionDenied)
	must.ErrorContains(t, err, "submit-raw-exec")
	must.ErrorIs(t, revert(reader, "no-such-job"), ErrPermissionDenied)
	must.ErrorIs(t, revert(writer, "no-such-job"), ErrNotFound)
	must.NoError(t, revert(raw, "web"))

	_, err = s.PeriodicForceLaunch(auth.WithCaller(testCtx(t), reader), "default", "no-such-job")
	must.ErrorIs(t, err, ErrPermissionDenied)
}

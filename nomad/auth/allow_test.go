package auth

import (
	"context"
	"errors"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/acl"
	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/structs"
)

func aclOf(t *testing.T, rules string) *acl.ACL {
	t.Helper()
	p, err := acl.Parse(rules)
	must.NoError(t, err)
	return acl.New(p)
}

// TestAllow_eachWriteNeedsItsCapability holds each check to a caller that
// has what it needs and to one that has everything but that.
func TestAllow_eachWriteNeedsItsCapability(t *testing.T) {
	rawJob := &structs.Job{ID: "j", Namespace: "team", TaskGroups: []*structs.TaskGroup{{
		Name: "g", Tasks: []*structs.Task{{Name: "t", Driver: "raw_exec"}},
	}}}
	writer := aclOf(t, `namespace "team" { policy = "write" }
node { policy = "write" }`)
	reader := aclOf(t, `namespace "*" { policy = "read" }
node { policy = "read" }`)
	raw := aclOf(t, `namespace "team" {
  policy       = "write"
  capabilities = ["submit-raw-exec"]
}`)
	checks := []struct {
		name    string
		check   func(*acl.ACL) error
		holding *acl.ACL
	}{
		{"register raw_exec", func(a *acl.ACL) error { return JobRegister(a, rawJob) }, raw},
		{"stop", func(a *acl.ACL) error { return JobDeregister(a, "team", false) }, writer},
		{"purge", func(a *acl.ACL) error { return JobDeregister(a, "team", true) }, aclOf(t, `namespace "team" { capabilities = ["purge-job"] }`)},
		{"revert", func(a *acl.ACL) error { return JobRevert(a, "team") }, aclOf(t, `namespace "team" { capabilities = ["register-job"] }`)},
		{"periodic force", func(a *acl.ACL) error { return PeriodicForce(a, "team") }, aclOf(t, `namespace "team" { capabilities = ["dispatch-job"] }`)},
		{"plan", func(a *acl.ACL) error { return Plan(a, "team") }, aclOf(t, `namespace "team" { capabilities = ["plan-job"] }`)},
		{"evaluate", func(a *acl.ACL) error { return JobEvaluate(a, "team") }, writer},
		{"alloc stop", func(a *acl.ACL) error { return AllocOperation(a, "team", acl.CapAllocLifecycle) }, writer},
		{"node write", NodeWrite, writer},
		{"management", Management, acl.Management()},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			must.NoError(t, c.check(c.holding))
			err := c.check(reader)
			must.True(t, errors.Is(err, nomadrpc.ErrPermissionDenied), must.Sprint(err))
		})
	}
	// Writing the namespace is not enough for a raw_exec task.
	must.ErrorContains(t, JobRegister(writer, rawJob), "submit-raw-exec")
}

func TestCaller_carriedByTheContext(t *testing.T) {
	_, ok := Caller(context.Background())
	must.False(t, ok)
	_, ok = Caller(WithCaller(context.Background(), nil))
	must.False(t, ok)
	a, ok := Caller(WithCaller(context.Background(), acl.Management()))
	must.True(t, ok)
	must.True(t, a.IsManagement())
}

package nomad

import (
	"context"
	"fmt"
	"slices"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/internal/authcount"
	"github.com/drover-io/drover/structs"
)

// What each write a user makes needs. The server method that serves the
// write checks it, once, through authorize: on the leader for a write
// that goes through raft (userWrite), on the server the request reaches
// for one that does not (a plan, a job evaluation). Each returns nil or an
// error wrapping ErrPermissionDenied.

// rawExecDriver is the driver whose tasks run as the client's own user.
const rawExecDriver = "raw_exec"

// allowJobRegister checks a job register: submit-job (or register-job) in
// the job's namespace, and submit-raw-exec too when a task uses raw_exec,
// which runs as the client's user, root on most machines.
func allowJobRegister(a *acl.ACL, job *structs.Job) error {
	if !a.AllowNamespaceAny(job.Namespace, acl.CapSubmitJob, acl.CapRegisterJob) {
		return denied("registering a job needs submit-job in namespace %q", job.Namespace)
	}
	if slices.Contains(job.Drivers(), rawExecDriver) && !a.AllowNamespaceOperation(job.Namespace, acl.CapSubmitRawExec) {
		return denied("a job with a raw_exec task needs the %s capability in namespace %q", acl.CapSubmitRawExec, job.Namespace)
	}
	return nil
}

// allowJobDeregister checks a job stop (submit-job or deregister-job) or
// purge (submit-job or purge-job).
func allowJobDeregister(a *acl.ACL, namespace string, purge bool) error {
	capability := acl.CapDeregisterJob
	if purge {
		capability = acl.CapPurgeJob
	}
	if !a.AllowNamespaceAny(namespace, acl.CapSubmitJob, capability) {
		return denied("stopping a job needs submit-job in namespace %q", namespace)
	}
	return nil
}

// allowPeriodicForce checks a forced periodic launch: submit-job,
// dispatch-job or force-periodic-job in the job's namespace.
func allowPeriodicForce(a *acl.ACL, namespace string) error {
	if !a.AllowNamespaceAny(namespace, acl.CapSubmitJob, acl.CapDispatchJob, acl.CapForcePeriodicJob) {
		return denied("forcing a periodic launch needs submit-job in namespace %q", namespace)
	}
	return nil
}

// allowRegister is the allow of Job.Register.
func allowRegister(a *acl.ACL, req *JobRegisterRequest) error { return allowJobRegister(a, req.Job) }

// allowDeregister is the allow of Job.Deregister.
func allowDeregister(a *acl.ACL, req *JobDeregisterRequest) error {
	return allowJobDeregister(a, req.Namespace, req.Purge)
}

// allowForce is the allow of Periodic.Force.
func allowForce(a *acl.ACL, req *PeriodicForceRequest) error {
	return allowPeriodicForce(a, req.Namespace)
}

// allowAllocStop is the allow of Alloc.Stop: alloc-lifecycle in the
// allocation's namespace.
func (s *Server) allowAllocStop(a *acl.ACL, req *AllocStopRequest) error {
	return s.allowAllocOperation(a, req.AllocID, acl.CapAllocLifecycle)
}

// allowAllocSetMaxRun is the allow of Alloc.SetMaxRunDuration: it ends
// the allocation sooner or later, so it needs what stopping it needs.
func (s *Server) allowAllocSetMaxRun(a *acl.ACL, req *AllocMaxRunRequest) error {
	return s.allowAllocOperation(a, req.AllocID, acl.CapAllocLifecycle)
}

// allowPlan checks a job plan: submit-job or plan-job in the job's
// namespace.
func allowPlan(a *acl.ACL, namespace string) error {
	if !a.AllowNamespaceAny(namespace, acl.CapSubmitJob, acl.CapPlanJob) {
		return denied("planning a job needs submit-job or plan-job in namespace %q", namespace)
	}
	return nil
}

// allowJobEvaluate checks a job evaluation: submit-job in its namespace.
func allowJobEvaluate(a *acl.ACL, namespace string) error {
	if !a.AllowNamespaceOperation(namespace, acl.CapSubmitJob) {
		return denied("evaluating a job needs submit-job in namespace %q", namespace)
	}
	return nil
}

// allowNodeWrite checks a write to a node: node write.
func allowNodeWrite(a *acl.ACL) error {
	if !a.AllowNodeWrite() {
		return denied("changing a node needs node write")
	}
	return nil
}

// allowManagement checks what only a management token may do.
func allowManagement(a *acl.ACL) error {
	if !a.IsManagement() {
		return denied("this needs a management token")
	}
	return nil
}

// allowAllocOperation checks capability in the namespace of the
// allocation. An allocation that does not exist passes: the write then
// reports that it does not.
func (s *Server) allowAllocOperation(a *acl.ACL, allocID, capability string) error {
	alloc, err := s.State().AllocByID(nil, allocID)
	if err != nil {
		return err
	}
	if alloc != nil && !a.AllowNamespaceOperation(alloc.Namespace, capability) {
		return denied("this needs %s in namespace %q", capability, alloc.Namespace)
	}
	return nil
}

// denied is an ErrPermissionDenied error that says what was missing.
func denied(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrPermissionDenied, fmt.Sprintf(format, args...))
}

// authorize is the one permission check of a user's write: allow, on the
// identity of the caller ctx carries (WithCaller). A write whose caller
// no one handed in is refused when ACLs are on; with them off, anyone may
// do anything.
func (s *Server) authorize(ctx context.Context, allow func(*acl.ACL) error) error {
	authcount.Add()
	a, ok := callerFrom(ctx)
	if !ok {
		if s.config.ACLEnabled {
			return denied("no caller identity reached the server with this write")
		}
		a = acl.Management()
	}
	return allow(a)
}

// userWrite is leaderWrite for a write a user makes: on the leader, and
// before anything else, authorize checks allow on the caller's identity.
// A write forwarded by another server carries the caller's secret, which
// serveUserRPC resolved.
func userWrite[Req any, P forwardedRequest[Req], Resp any](ctx context.Context, s *Server, method string, req P,
	allow func(*acl.ACL, P) error, local func(context.Context, P) (*Resp, error)) (*Resp, error) {
	return leaderWrite(ctx, s, method, req, func(ctx context.Context, req P) (*Resp, error) {
		if err := s.authorize(ctx, func(a *acl.ACL) error { return allow(a, req) }); err != nil {
			return nil, err
		}
		return local(ctx, req)
	})
}

// management is the allow of a write only a management token may make.
func management[P any](a *acl.ACL, _ P) error { return allowManagement(a) }

// nodeWrite is the allow of a write to a node.
func nodeWrite[P any](a *acl.ACL, _ P) error { return allowNodeWrite(a) }

// serveUserRPC serves an RPC a server forwarded on a user's behalf: it
// resolves the secret the request carries against this server's state
// into the caller's identity, which the write's own check (userWrite)
// reads, and keeps the secret in the context for a write fn forwards
// again.
func (s *Server) serveUserRPC(secret string, fn func(ctx context.Context) error) error {
	return s.serveRPC(func(ctx context.Context) error {
		a, _, err := s.ResolveToken(ctx, secret)
		if err != nil {
			return err
		}
		return fn(WithCaller(WithAuthToken(ctx, secret), a))
	})
}

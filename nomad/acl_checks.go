package nomad

import (
	"context"
	"fmt"
	"slices"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/structs"
)

// What each write a user makes needs, checked at both doors: by the HTTP
// API on the server it reaches, and again by the leader when that server
// forwards it over RPC. Each returns nil or an error wrapping
// ErrPermissionDenied.

// rawExecDriver is the driver whose tasks run as the client's own user.
const rawExecDriver = "raw_exec"

// AllowJobRegister checks a job register: submit-job (or register-job) in
// the job's namespace, and submit-raw-exec too when a task uses raw_exec,
// which runs as the client's user, root on most machines.
func AllowJobRegister(a *acl.ACL, job *structs.Job) error {
	if !a.AllowNamespaceAny(job.Namespace, acl.CapSubmitJob, acl.CapRegisterJob) {
		return denied("registering a job needs submit-job in namespace %q", job.Namespace)
	}
	if slices.Contains(job.Drivers(), rawExecDriver) && !a.AllowNamespaceOperation(job.Namespace, acl.CapSubmitRawExec) {
		return denied("a job with a raw_exec task needs the %s capability in namespace %q", acl.CapSubmitRawExec, job.Namespace)
	}
	return nil
}

// AllowJobDeregister checks a job stop (submit-job or deregister-job) or
// purge (submit-job or purge-job).
func AllowJobDeregister(a *acl.ACL, namespace string, purge bool) error {
	capability := acl.CapDeregisterJob
	if purge {
		capability = acl.CapPurgeJob
	}
	if !a.AllowNamespaceAny(namespace, acl.CapSubmitJob, capability) {
		return denied("stopping a job needs submit-job in namespace %q", namespace)
	}
	return nil
}

// AllowPeriodicForce checks a forced periodic launch: submit-job,
// dispatch-job or force-periodic-job in the job's namespace.
func AllowPeriodicForce(a *acl.ACL, namespace string) error {
	if !a.AllowNamespaceAny(namespace, acl.CapSubmitJob, acl.CapDispatchJob, acl.CapForcePeriodicJob) {
		return denied("forcing a periodic launch needs submit-job in namespace %q", namespace)
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

// serveUserRPC serves an RPC made on a user's behalf: it resolves the
// secret the request carries against this server's state, lets allow
// check the resulting ACL, and only then runs fn, with the secret in its
// context for any write fn forwards again.
func (s *Server) serveUserRPC(secret string, allow func(*acl.ACL) error, fn func(ctx context.Context) error) error {
	return s.serveRPC(func(ctx context.Context) error {
		a, _, err := s.ResolveToken(ctx, secret)
		if err != nil {
			return err
		}
		if err := allow(a); err != nil {
			return err
		}
		return fn(WithAuthToken(ctx, secret))
	})
}

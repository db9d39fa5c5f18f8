package auth

import (
	"fmt"
	"slices"

	"github.com/drover-io/drover/acl"
	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/structs"
)

// What each write a user makes needs. Each returns nil or an error
// wrapping ErrPermissionDenied that says what was missing.

// rawExecDriver is the driver whose tasks run as the client's own user.
const rawExecDriver = "raw_exec"

// JobRegister checks a job register: submit-job (or register-job) in the
// job's namespace, and submit-raw-exec too when a task uses raw_exec,
// which runs as the client's user, root on most machines.
func JobRegister(a *acl.ACL, job *structs.Job) error {
	if !a.AllowNamespaceAny(job.Namespace, acl.CapSubmitJob, acl.CapRegisterJob) {
		return Denied("registering a job needs submit-job in namespace %q", job.Namespace)
	}
	if slices.Contains(job.Drivers(), rawExecDriver) && !a.AllowNamespaceOperation(job.Namespace, acl.CapSubmitRawExec) {
		return Denied("a job with a raw_exec task needs the %s capability in namespace %q", acl.CapSubmitRawExec, job.Namespace)
	}
	return nil
}

// JobDeregister checks a job stop (submit-job or deregister-job) or purge
// (submit-job or purge-job).
func JobDeregister(a *acl.ACL, namespace string, purge bool) error {
	capability := acl.CapDeregisterJob
	if purge {
		capability = acl.CapPurgeJob
	}
	if !a.AllowNamespaceAny(namespace, acl.CapSubmitJob, capability) {
		return Denied("stopping a job needs submit-job in namespace %q", namespace)
	}
	return nil
}

// JobRevert checks that a revert may look at the job's versions:
// submit-job (or register-job) in its namespace; the version it registers
// is then held to JobRegister.
func JobRevert(a *acl.ACL, namespace string) error {
	if !a.AllowNamespaceAny(namespace, acl.CapSubmitJob, acl.CapRegisterJob) {
		return Denied("reverting a job needs submit-job in namespace %q", namespace)
	}
	return nil
}

// PeriodicForce checks a forced periodic launch: submit-job, dispatch-job
// or force-periodic-job in the job's namespace.
func PeriodicForce(a *acl.ACL, namespace string) error {
	if !a.AllowNamespaceAny(namespace, acl.CapSubmitJob, acl.CapDispatchJob, acl.CapForcePeriodicJob) {
		return Denied("forcing a periodic launch needs submit-job in namespace %q", namespace)
	}
	return nil
}

// Plan checks a job plan: submit-job or plan-job in the job's namespace.
func Plan(a *acl.ACL, namespace string) error {
	if !a.AllowNamespaceAny(namespace, acl.CapSubmitJob, acl.CapPlanJob) {
		return Denied("planning a job needs submit-job or plan-job in namespace %q", namespace)
	}
	return nil
}

// JobEvaluate checks a job evaluation: submit-job in its namespace.
func JobEvaluate(a *acl.ACL, namespace string) error {
	if !a.AllowNamespaceOperation(namespace, acl.CapSubmitJob) {
		return Denied("evaluating a job needs submit-job in namespace %q", namespace)
	}
	return nil
}

// AllocOperation checks capability in the namespace of an allocation.
func AllocOperation(a *acl.ACL, namespace, capability string) error {
	if !a.AllowNamespaceOperation(namespace, capability) {
		return Denied("this needs %s in namespace %q", capability, namespace)
	}
	return nil
}

// NodeWrite checks a write to a node: node write.
func NodeWrite(a *acl.ACL) error {
	if !a.AllowNodeWrite() {
		return Denied("changing a node needs node write")
	}
	return nil
}

// Management checks what only a management token may do.
func Management(a *acl.ACL) error {
	if !a.IsManagement() {
		return Denied("this needs a management token")
	}
	return nil
}

// Denied is an ErrPermissionDenied error that says what was missing.
func Denied(format string, args ...any) error {
	return fmt.Errorf("%w: %s", nomadrpc.ErrPermissionDenied, fmt.Sprintf(format, args...))
}

// JobDispatch checks a dispatch of a parameterized job: dispatch-job in
// the job's namespace, as Nomad's (policy "write" grants it).
func JobDispatch(a *acl.ACL, namespace string) error {
	if !a.AllowNamespaceOperation(namespace, acl.CapDispatchJob) {
		return Denied("dispatching a job needs %s in namespace %q", acl.CapDispatchJob, namespace)
	}
	return nil
}

package nomad

import (
	"context"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/internal/authcount"
	"github.com/drover-io/drover/nomad/auth"
)

// Each user's write is checked once, through authorize, by the server
// method that serves it: on the leader for a write that goes through raft
// (userWrite), on the server the request reaches for one that does not (a
// plan, a job or node evaluation, a snapshot restore). What each write
// needs is in package auth; the adaptors below take it from the request.

// authorize is the one permission check of a user's write: allow, on the
// identity of the caller ctx carries (auth.WithCaller). A write whose
// caller no one handed in is refused when ACLs are on; with them off,
// anyone may do anything.
func (s *Server) authorize(ctx context.Context, allow func(*acl.ACL) error) error {
	authcount.Add()
	a, ok := auth.Caller(ctx)
	if !ok {
		if s.config.ACLEnabled {
			return auth.Denied("no caller identity reached the server with this write")
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
		return fn(auth.WithCaller(WithAuthToken(ctx, secret), a))
	})
}

// The allow of each write, from its request.

func allowRegister(a *acl.ACL, req *JobRegisterRequest) error { return auth.JobRegister(a, req.Job) }

func allowDeregister(a *acl.ACL, req *JobDeregisterRequest) error {
	return auth.JobDeregister(a, req.Namespace, req.Purge)
}

func allowForce(a *acl.ACL, req *PeriodicForceRequest) error {
	return auth.PeriodicForce(a, req.Namespace)
}

func management[P any](a *acl.ACL, _ P) error { return auth.Management(a) }

func nodeWrite[P any](a *acl.ACL, _ P) error { return auth.NodeWrite(a) }

// allowAllocStop: alloc-lifecycle in the allocation's namespace.
func (s *Server) allowAllocStop(a *acl.ACL, req *AllocStopRequest) error {
	return s.allowAllocOperation(a, req.AllocID, acl.CapAllocLifecycle)
}

// allowAllocSetMaxRun: a new max_run_duration ends the allocation sooner
// or later, so it needs what stopping it needs; or it is a task's
// workload identity changing its own allocation, within the ceiling its
// job sets (allowSelfMaxRun, checked once the allocation is read).
func (s *Server) allowAllocSetMaxRun(a *acl.ACL, req *AllocMaxRunRequest) error {
	if a.Workload() != nil {
		return s.allowSelfMaxRunCaller(a, req.AllocID)
	}
	return s.allowAllocOperation(a, req.AllocID, acl.CapAllocLifecycle)
}

// allowAllocOperation checks capability in the namespace of the
// allocation. An allocation that does not exist passes: the write then
// reports that it does not.
func (s *Server) allowAllocOperation(a *acl.ACL, allocID, capability string) error {
	alloc, err := s.State().AllocByID(nil, allocID)
	if err != nil || alloc == nil {
		return err
	}
	return auth.AllocOperation(a, alloc.Namespace, capability)
}

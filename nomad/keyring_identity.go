package nomad

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"time"

	"github.com/drover-io/drover/acl"
	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/structs"
)

// Workload identities are signed on demand: a client asks for those of its
// allocation's tasks as it starts them, and any server signs them with the
// keyring's active key from its own state. Nothing is signed while a plan
// is made or applied, and no token is stored in raft.

// maxIdentityTasks bounds the tasks one request signs for: a group has
// at most this many (limits.job_max_tasks is far lower by default).
const maxIdentityTasks = 1024

// IdentitySignRequest asks for the workload identities of tasks of an
// allocation, by the node that runs it.
type IdentitySignRequest struct {
	NodeID   string
	SecretID string
	AllocID  string
	Tasks    []string
}

// SignedIdentity is one task's token.
type SignedIdentity struct {
	Task string
	JWT  string
	// Expiry is when the token stops being valid; zero for none.
	Expiry time.Time
}

// IdentitySignResponse holds one token per task asked for.
type IdentitySignResponse struct {
	Identities []SignedIdentity
}

// SignIdentities signs the default identity of each task asked for, as
// the task's identity block in the allocation's job says (audience,
// ttl), with the active root key. The allocation must run on the
// requesting node and not be terminal. The caller has proved the node's
// identity (see clientRPC.SignIdentities).
func (s *Server) SignIdentities(ctx context.Context, req *IdentitySignRequest) (*IdentitySignResponse, error) {
	if len(req.Tasks) == 0 || len(req.Tasks) > maxIdentityTasks {
		return nil, invalidf("sign identities: %d tasks; ask for 1 to %d", len(req.Tasks), maxIdentityTasks)
	}
	alloc, err := s.replicatedAlloc(ctx, req.AllocID)
	if err != nil {
		return nil, err
	}
	switch {
	case alloc == nil:
		return nil, fmt.Errorf("allocation %q: %w", req.AllocID, ErrNotFound)
	case alloc.NodeID != req.NodeID:
		return nil, permissionDenied("allocation %s does not run on node %s", alloc.ID, req.NodeID)
	case alloc.ClientTerminalStatus():
		return nil, invalidf("allocation %s is %s: its tasks get no identity", alloc.ID, alloc.ClientStatus)
	}
	group := alloc.LookupTaskGroup()
	if group == nil {
		return nil, fmt.Errorf("allocation %s: its job has no group %q", alloc.ID, alloc.TaskGroup)
	}
	key, err := s.State().ActiveRootKey(nil)
	if err != nil {
		return nil, err
	}
	if key == nil {
		return nil, errors.New("sign identities: the keyring has no key yet (the leader makes one as it takes office)")
	}
	now := time.Now()
	resp := &IdentitySignResponse{Identities: make([]SignedIdentity, 0, len(req.Tasks))}
	for _, name := range req.Tasks {
		task := group.LookupTask(name)
		if task == nil {
			return nil, invalidf("allocation %s: group %q has no task %q", alloc.ID, alloc.TaskGroup, name)
		}
		claims := structs.NewIdentityClaims(alloc, name, task.Identity, s.config.Region, now)
		token, err := structs.SignIdentity(key, claims)
		if err != nil {
			return nil, err
		}
		signed := SignedIdentity{Task: name, JWT: token}
		if claims.Expiry != 0 {
			signed.Expiry = time.Unix(claims.Expiry, 0)
		}
		resp.Identities = append(resp.Identities, signed)
	}
	return resp, nil
}

// replicatedAlloc returns the stored allocation, catching up with the
// cluster first when this server does not hold it yet: the client may
// have learnt of it from a server ahead of this one.
func (s *Server) replicatedAlloc(ctx context.Context, id string) (*structs.Allocation, error) {
	alloc, err := s.State().AllocByID(nil, id)
	if err != nil || alloc != nil {
		return alloc, err
	}
	if err := s.catchUpForRead(ctx); err != nil {
		return nil, err
	}
	return s.State().AllocByID(nil, id)
}

// ResolveWorkloadIdentity verifies token as a workload identity: signed
// by a key of the keyring, valid now, for the Nomad API's audience, of an
// allocation that exists and is not terminal. It returns the ACL of that
// workload. A key this server does not hold yet (a rotation a moment ago)
// is looked for again once the server caught up with the cluster.
func (s *Server) ResolveWorkloadIdentity(ctx context.Context, token string) (*acl.ACL, error) {
	claims, err := s.verifyIdentity(token)
	if errors.Is(err, errUnknownIdentityKey) {
		if cerr := s.catchUpForRead(ctx); cerr != nil {
			return nil, fmt.Errorf("%w (and this server could not catch up with the cluster to be sure: %v)", err, cerr)
		}
		claims, err = s.verifyIdentity(token)
	}
	if err != nil {
		return nil, nomadrpc.WithKind(ErrPermissionDenied, err)
	}
	if !claims.HasAudience(structs.WorkloadIdentityDefaultAudience) {
		return nil, permissionDenied("%v: its audience is not %q, the Nomad API's", structs.ErrInvalidIdentity, structs.WorkloadIdentityDefaultAudience)
	}
	alloc, err := s.State().AllocByID(nil, claims.AllocationID)
	if err != nil {
		return nil, err
	}
	if alloc == nil || alloc.ClientTerminalStatus() || alloc.Namespace != claims.Namespace || alloc.JobID != claims.JobID {
		return nil, permissionDenied("%v: its allocation %s no longer runs", structs.ErrInvalidIdentity, claims.AllocationID)
	}
	w := acl.Workload{
		Namespace:    claims.Namespace,
		JobID:        claims.JobID,
		AllocationID: claims.AllocationID,
		TaskGroup:    alloc.TaskGroup,
		Task:         claims.Task,
	}
	if alloc.Job != nil {
		w.ParentJobID = alloc.Job.ParentID
	}
	return acl.NewWorkload(w), nil
}

// errUnknownIdentityKey marks a token signed by a key this server does
// not hold.
var errUnknownIdentityKey = errors.New("unknown key")

func (s *Server) verifyIdentity(token string) (*structs.IdentityClaims, error) {
	st := s.State()
	var lookupErr error
	unknown := false
	claims, err := structs.VerifyIdentity(token, func(keyID string) ed25519.PublicKey {
		if !structs.ValidRootKeyID(keyID) {
			unknown = true
			return nil
		}
		key, err := st.RootKeyByID(nil, keyID)
		if err != nil {
			lookupErr = err
			return nil
		}
		if key == nil {
			unknown = true
			return nil
		}
		return key.PublicKey()
	}, time.Now())
	switch {
	case lookupErr != nil:
		return nil, lookupErr
	case unknown:
		return nil, fmt.Errorf("%w (%w)", err, errUnknownIdentityKey)
	}
	return claims, err
}

// SignIdentities serves a client agent the workload identities of its
// allocation's tasks. The node proves its secret ID, as in every call of
// a client.
func (e *clientRPC) SignIdentities(args *IdentitySignRequest, reply *IdentitySignResponse) error {
	return e.srv.serveClient(func(ctx context.Context) error {
		if err := e.srv.checkNodeSecret(ctx, args.NodeID, args.SecretID); err != nil {
			return err
		}
		return fill(reply)(e.srv.SignIdentities(ctx, args))
	})
}

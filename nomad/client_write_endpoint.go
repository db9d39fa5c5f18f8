package nomad

import (
	"context"
	"crypto/subtle"
	"fmt"
	"time"

	"github.com/hashicorp/go-memdb"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/structs"
)

// clientRPC serves client agents: registration, heartbeats, their
// allocations and what they report about them. It is the only endpoint a
// connection that did not authenticate as a server reaches, so every call
// proves the node's secret ID, and only a connection that proved the
// registration secret (role client or server) registers a node the
// servers do not know yet.
//
// Unlike the endpoints that serve requests forwarded by other servers, it
// does not mark its requests as forwarded: a client may reach any server,
// and a follower that gets its write must send it on to the leader itself,
// as it does for a write that came over HTTP.
type clientRPC struct {
	srv  *Server
	role nomadrpc.ConnRole
}

// serveClient runs fn with a context bounded by the forward timeout and
// the server's life, and encodes its error for the wire.
func (s *Server) serveClient(fn func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(s.shutdownCtx, s.config.ForwardTimeout)
	defer cancel()
	return nomadrpc.EncodeError(fn(ctx))
}

// Register serves a node's registration. The leader checks the secret ID
// against the stored node (see nodeRegisterLocal).
func (e *clientRPC) Register(args *NodeRegisterRequest, reply *NodeUpdateResponse) error {
	return e.srv.serveClient(func(ctx context.Context) error {
		if args.Node == nil || args.Node.SecretID == "" {
			return invalidf("node register: a node registers with its secret ID")
		}
		req := &NodeRegisterRequest{Node: args.Node, NewNodeAllowed: e.role >= nomadrpc.RoleClient}
		return fill(reply)(e.srv.nodeRegister(ctx, req))
	})
}

// Heartbeat serves NodeHeartbeat to a client agent.
func (e *clientRPC) Heartbeat(args *NodeHeartbeatRequest, reply *NodeHeartbeatResponse) error {
	return e.srv.serveClient(func(ctx context.Context) error {
		if err := e.srv.checkNodeSecret(ctx, args.NodeID, args.SecretID); err != nil {
			return err
		}
		ttl, err := e.srv.NodeHeartbeat(ctx, args.NodeID)
		reply.HeartbeatTTL = ttl
		return err
	})
}

// UpdateAllocs serves UpdateAllocsFromClient to a client agent, for the
// allocations of its own node only.
func (e *clientRPC) UpdateAllocs(args *AllocClientUpdateRequest, reply *IndexResponse) error {
	return e.srv.serveClient(func(ctx context.Context) error {
		if err := e.srv.checkNodeSecret(ctx, args.NodeID, args.SecretID); err != nil {
			return err
		}
		req := &AllocClientUpdateRequest{Allocs: args.Allocs, NodeID: args.NodeID}
		resp, err := leaderWrite(ctx, e.srv, "Alloc.UpdateFromClient", req, e.srv.updateAllocsFromClientLocal)
		if err == nil {
			reply.Index = resp.Index
		}
		return err
	})
}

// ResolveToken tells a client agent what an ACL secret's token and its
// policies are, so that it checks the requests its HTTP API serves.
func (e *clientRPC) ResolveToken(args *ACLResolveTokenRequest, reply *ACLResolveTokenResponse) error {
	return e.srv.serveClient(func(ctx context.Context) error {
		if err := e.srv.checkNodeSecret(ctx, args.NodeID, args.SecretID); err != nil {
			return err
		}
		return fill(reply)(e.srv.resolveTokenPolicies(ctx, args.Token))
	})
}

// checkNodeSecret makes sure that secretID is the secret ID the node
// registered with. The secret of a stored node never changes (see
// nodeRegisterLocal), so any server's state answers for it once it holds
// the node. A follower may not hold a node that has just registered
// through the leader: it waits up to nodeReplicationWait for it.
func (s *Server) checkNodeSecret(ctx context.Context, nodeID, secretID string) error {
	if nodeID == "" {
		return invalidf("missing node ID")
	}
	node, err := s.replicatedNode(ctx, nodeID)
	if err != nil {
		return err
	}
	if node == nil {
		return fmt.Errorf("node %q: %w", nodeID, ErrNotFound)
	}
	if !secretMatches(node, secretID) {
		return permissionDenied("node %s: wrong secret ID", nodeID)
	}
	return nil
}

// nodeReplicationWait bounds how long a follower waits for a node it does
// not hold yet.
const nodeReplicationWait = 2 * time.Second

// replicatedNode returns the stored node, waiting on a follower for it to
// arrive; nil when it does not.
func (s *Server) replicatedNode(ctx context.Context, nodeID string) (*structs.Node, error) {
	ctx, cancel := context.WithTimeout(ctx, nodeReplicationWait)
	defer cancel()
	for {
		ws := memdb.NewWatchSet()
		node, err := s.State().NodeByID(ws, nodeID)
		if err != nil || node != nil || s.IsLeader() {
			return node, err
		}
		if ws.WatchCtx(ctx) != nil {
			return nil, nil
		}
	}
}

// secretMatches reports whether secretID is node's secret ID. A node
// stored without one (registered in-process, or by an older version)
// matches nothing.
func secretMatches(node *structs.Node, secretID string) bool {
	return node.SecretID != "" && subtle.ConstantTimeCompare([]byte(node.SecretID), []byte(secretID)) == 1
}

package nomad

import (
	"context"
	"errors"
	"time"

	"github.com/drover-io/drover/structs"
)

// NodeHeartbeatRequest is a client's heartbeat.
type NodeHeartbeatRequest struct {
	WriteDeadline
	NodeID string
	// SecretID proves the caller is the node; servers forwarding the
	// heartbeat to the leader checked it already.
	SecretID string
}

// NodeHeartbeatResponse tells the client how soon to heartbeat again.
type NodeHeartbeatResponse struct {
	HeartbeatTTL time.Duration
	Index        uint64
}

// NodeHeartbeat records that a node is alive: it restarts the node's
// heartbeat timer on the leader and returns the TTL within which the node
// must heartbeat again. A node that was not ready (initializing, or marked
// down after missed heartbeats) becomes ready, with evaluations for the
// jobs that can use it again. An unknown node is an ErrNotFound error: it
// must register first.
//
// A follower keeps the heartbeat until the leader has it, so that the
// leader can collect it should the follower fail to forward it (see
// heartbeat_relay.go and package heartbeat).
func (s *Server) NodeHeartbeat(ctx context.Context, nodeID string) (time.Duration, error) {
	var took time.Time
	if !isForwarded(ctx) && !s.IsLeader() && s.knownNode(nodeID) {
		took = s.relay.Took(nodeID)
	}
	resp, err := leaderWrite(ctx, s, "Node.Heartbeat", &NodeHeartbeatRequest{NodeID: nodeID}, s.nodeHeartbeatLocal)
	if err != nil {
		return 0, err
	}
	if !took.IsZero() {
		s.relay.Delivered(nodeID, took)
	}
	return resp.HeartbeatTTL, nil
}

// knownNode reports whether this server's state holds the node: only
// their heartbeats are kept for the leader.
func (s *Server) knownNode(nodeID string) bool {
	node, err := s.State().NodeByID(nil, nodeID)
	return err == nil && node != nil
}

func (s *Server) nodeHeartbeatLocal(ctx context.Context, req *NodeHeartbeatRequest) (*NodeHeartbeatResponse, error) {
	node, err := s.storedNode(ctx, req.NodeID)
	if err != nil {
		return nil, err
	}
	if node.Status != structs.NodeStatusReady {
		resp, err := s.nodeUpdateStatusLocal(ctx, &NodeUpdateStatusRequest{NodeID: req.NodeID, Status: structs.NodeStatusReady})
		if err != nil {
			return nil, err
		}
		return &NodeHeartbeatResponse{HeartbeatTTL: resp.HeartbeatTTL, Index: resp.Index}, nil
	}
	return &NodeHeartbeatResponse{HeartbeatTTL: s.heartbeats.Reset(req.NodeID), Index: node.ModifyIndex}, nil
}

// Heartbeat serves NodeHeartbeat.
func (e *nodeRPC) Heartbeat(args *NodeHeartbeatRequest, reply *NodeHeartbeatResponse) error {
	return e.srv.serveRPC(func(ctx context.Context) error {
		ttl, err := e.srv.NodeHeartbeat(ctx, args.NodeID)
		reply.HeartbeatTTL = ttl
		return err
	})
}

// expireNode marks a node that missed its heartbeat down, with
// evaluations that replace its allocations elsewhere.
func (s *Server) expireNode(ctx context.Context, nodeID string) {
	node, err := s.State().NodeByID(nil, nodeID)
	if err != nil || node == nil || node.Status == structs.NodeStatusDown {
		return
	}
	if _, err := s.NodeUpdateStatus(ctx, nodeID, structs.NodeStatusDown); err != nil && !errors.Is(err, ErrNotFound) {
		s.logger.Error("mark node down after missed heartbeat", "node_id", nodeID, "error", err)
	}
}

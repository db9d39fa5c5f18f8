package nomad

import (
	"context"
	"fmt"
	"time"

	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// NodeRegisterRequest registers a node or refreshes its registration.
type NodeRegisterRequest struct {
	WriteDeadline
	Node *structs.Node

	// NewNodeAllowed lets the request register a node the servers do not
	// know yet. The server that takes the request from a client agent sets
	// it from what the agent proved; what the agent sends is ignored.
	NewNodeAllowed bool
}

// NodeUpdateStatusRequest sets a node's status.
type NodeUpdateStatusRequest struct {
	WriteDeadline
	NodeID string
	Status string
}

// NodeUpdateEligibilityRequest sets whether the scheduler may use a node.
type NodeUpdateEligibilityRequest struct {
	AuthRequest
	WriteDeadline
	NodeID      string
	Eligibility string
}

// NodeUpdateDrainRequest starts a drain (DrainStrategy set) or ends one.
type NodeUpdateDrainRequest struct {
	AuthRequest
	WriteDeadline
	NodeID        string
	DrainStrategy *structs.DrainStrategy
	MarkEligible  bool
}

// NodeDeregisterRequest removes nodes.
type NodeDeregisterRequest struct {
	AuthRequest
	WriteDeadline
	NodeIDs []string
}

// NodeUpdateResponse reports a node write and the evaluations it created
// for the jobs the change affects.
type NodeUpdateResponse struct {
	EvalIDs         []string
	EvalCreateIndex uint64
	NodeModifyIndex uint64
	Index           uint64

	// HeartbeatTTL, on a register or a status update that leaves the node
	// up, is how soon the node must heartbeat to stay up.
	HeartbeatTTL time.Duration
}

// NodeRegister registers a node or refreshes its registration, for a
// caller in this process (the agent's own client). A node that becomes
// ready or down gets evaluations for the jobs it affects. A node already
// registered with a secret ID is registered again only with the same one.
func (s *Server) NodeRegister(ctx context.Context, node *structs.Node) (*NodeUpdateResponse, error) {
	return s.nodeRegister(ctx, &NodeRegisterRequest{Node: node, NewNodeAllowed: true})
}

func (s *Server) nodeRegister(ctx context.Context, req *NodeRegisterRequest) (*NodeUpdateResponse, error) {
	return leaderWrite(ctx, s, "Node.Register", req, s.nodeRegisterLocal)
}

func (s *Server) nodeRegisterLocal(ctx context.Context, req *NodeRegisterRequest) (*NodeUpdateResponse, error) {
	if err := logentry.ValidateNode(req.Node); err != nil {
		return nil, err
	}
	node := req.Node.Copy()
	if err := s.leaderBarrier(ctx); err != nil {
		return nil, err
	}
	st := s.State()
	existing, err := st.NodeByID(nil, node.ID)
	if err != nil {
		return nil, err
	}
	if err := registrationAllowed(existing, node, req.NewNodeAllowed); err != nil {
		return nil, err
	}
	if node.Status == "" {
		node.Status = structs.NodeStatusInit
	}
	now := time.Now().UnixNano()
	if existing == nil || existing.Status != node.Status {
		node.StatusUpdatedAt = now
	}
	entry := &logentry.NodeRegister{Node: node}
	if existing == nil || existing.Status != node.Status {
		if entry.Evals, err = nodeStatusEvals(st, node.ID, node.Status, now); err != nil {
			return nil, err
		}
	}
	resp, err := s.applyNodeWrite(ctx, logentry.MsgNodeRegister, entry, entry.Evals)
	if err != nil {
		return nil, err
	}
	s.trackHeartbeat(resp, node.ID, node.Status)
	return resp, nil
}

// registrationAllowed decides whether node may be registered over
// existing, the stored node of its ID (nil if none): a node with a secret
// ID is the node of whoever proves it, and only such a caller registers
// it again; a node the servers do not know, or one stored without a secret
// ID, only a caller allowed to register new nodes.
func registrationAllowed(existing, node *structs.Node, newNodeAllowed bool) error {
	if existing != nil && existing.SecretID != "" {
		if !secretMatches(existing, node.SecretID) {
			return permissionDenied("node %s is registered, and this registration does not carry its secret ID", node.ID)
		}
		return nil
	}
	if !newNodeAllowed {
		return permissionDenied("registering a new node needs the cluster's registration secret (client.registration_secret) or a client certificate")
	}
	return nil
}

// trackHeartbeat restarts the heartbeat timer of a node that is up and
// tells it its TTL, or stops the timer of a node that is down.
func (s *Server) trackHeartbeat(resp *NodeUpdateResponse, nodeID, status string) {
	if status == structs.NodeStatusDown {
		s.heartbeats.Clear(nodeID)
		return
	}
	resp.HeartbeatTTL = s.heartbeats.Reset(nodeID)
}

// NodeUpdateStatus sets a node's status. A node that becomes ready or down
// gets evaluations for the jobs it affects.
func (s *Server) NodeUpdateStatus(ctx context.Context, nodeID, status string) (*NodeUpdateResponse, error) {
	req := &NodeUpdateStatusRequest{NodeID: nodeID, Status: status}
	return leaderWrite(ctx, s, "Node.UpdateStatus", req, s.nodeUpdateStatusLocal)
}

func (s *Server) nodeUpdateStatusLocal(ctx context.Context, req *NodeUpdateStatusRequest) (*NodeUpdateResponse, error) {
	node, err := s.storedNode(ctx, req.NodeID)
	if err != nil {
		return nil, err
	}
	now := time.Now().UnixNano()
	entry := &logentry.NodeUpdateStatus{NodeID: req.NodeID, Status: req.Status, UpdatedAt: now}
	if node.Status != req.Status {
		if entry.Evals, err = nodeStatusEvals(s.State(), node.ID, req.Status, now); err != nil {
			return nil, err
		}
	}
	resp, err := s.applyNodeWrite(ctx, logentry.MsgNodeUpdateStatus, entry, entry.Evals)
	if err != nil {
		return nil, err
	}
	s.trackHeartbeat(resp, req.NodeID, req.Status)
	return resp, nil
}

// NodeUpdateEligibility sets whether the scheduler may place allocations on
// a node. A node that becomes eligible gets evaluations, so that work
// waiting for room can use it.
func (s *Server) NodeUpdateEligibility(ctx context.Context, nodeID, eligibility string) (*NodeUpdateResponse, error) {
	req := &NodeUpdateEligibilityRequest{NodeID: nodeID, Eligibility: eligibility}
	return userWrite(ctx, s, "Node.UpdateEligibility", req, nodeWrite, s.nodeUpdateEligibilityLocal)
}

func (s *Server) nodeUpdateEligibilityLocal(ctx context.Context, req *NodeUpdateEligibilityRequest) (*NodeUpdateResponse, error) {
	node, err := s.storedNode(ctx, req.NodeID)
	if err != nil {
		return nil, err
	}
	if req.Eligibility == structs.NodeSchedulingEligible && node.DrainStrategy != nil {
		return nil, invalidf("node %q is draining and cannot be made eligible", node.ID)
	}
	now := time.Now().UnixNano()
	entry := &logentry.NodeUpdateEligibility{NodeID: req.NodeID, Eligibility: req.Eligibility, UpdatedAt: now}
	if node.SchedulingEligibility != req.Eligibility && req.Eligibility == structs.NodeSchedulingEligible {
		if entry.Evals, err = nodeEvals(s.State(), node.ID, now); err != nil {
			return nil, err
		}
	}
	return s.applyNodeWrite(ctx, logentry.MsgNodeUpdateEligibility, entry, entry.Evals)
}

// NodeUpdateDrain starts a drain (drain set) or ends one (drain nil); an
// ended drain makes the node eligible again when markEligible is set.
func (s *Server) NodeUpdateDrain(ctx context.Context, nodeID string, drain *structs.DrainStrategy, markEligible bool) (*NodeUpdateResponse, error) {
	req := &NodeUpdateDrainRequest{NodeID: nodeID, DrainStrategy: drain, MarkEligible: markEligible}
	return userWrite(ctx, s, "Node.UpdateDrain", req, nodeWrite, s.nodeUpdateDrainLocal)
}

// endDrain ends the drain of a node, as the drainer does once the node's
// allocations have moved: the server's own write, which no user checks.
func (s *Server) endDrain(ctx context.Context, nodeID string) error {
	_, err := leaderWrite(ctx, s, "Node.UpdateDrain", &NodeUpdateDrainRequest{NodeID: nodeID}, s.nodeUpdateDrainLocal)
	return err
}

func (s *Server) nodeUpdateDrainLocal(ctx context.Context, req *NodeUpdateDrainRequest) (*NodeUpdateResponse, error) {
	node, err := s.storedNode(ctx, req.NodeID)
	if err != nil {
		return nil, err
	}
	now := time.Now().UnixNano()
	entry := &logentry.NodeUpdateDrain{NodeID: req.NodeID, MarkEligible: req.MarkEligible, UpdatedAt: now}
	if req.DrainStrategy != nil {
		drain := *req.DrainStrategy
		if drain.StartedAt.IsZero() {
			drain.StartedAt = time.Unix(0, now).UTC()
		}
		// A positive deadline bounds the drain; a negative one forces it
		// at once; zero leaves it unbounded.
		switch {
		case drain.Deadline > 0:
			drain.ForceDeadline = drain.StartedAt.Add(drain.Deadline)
		case drain.Deadline < 0:
			drain.ForceDeadline = drain.StartedAt
		}
		entry.DrainStrategy = &drain
	}
	becomesEligible := req.DrainStrategy == nil && req.MarkEligible &&
		node.SchedulingEligibility != structs.NodeSchedulingEligible
	if becomesEligible {
		if entry.Evals, err = nodeEvals(s.State(), node.ID, now); err != nil {
			return nil, err
		}
	}
	return s.applyNodeWrite(ctx, logentry.MsgNodeUpdateDrain, entry, entry.Evals)
}

// NodeDeregister removes nodes. Unknown IDs are an ErrNotFound error.
func (s *Server) NodeDeregister(ctx context.Context, nodeIDs []string) (*NodeUpdateResponse, error) {
	return userWrite(ctx, s, "Node.Deregister", &NodeDeregisterRequest{NodeIDs: nodeIDs}, nodeWrite, s.nodeDeregisterLocal)
}

func (s *Server) nodeDeregisterLocal(ctx context.Context, req *NodeDeregisterRequest) (*NodeUpdateResponse, error) {
	if len(req.NodeIDs) == 0 {
		return nil, invalidf("node deregister: no node IDs")
	}
	now := time.Now().UnixNano()
	var evals []*structs.Evaluation
	for _, id := range req.NodeIDs {
		if _, err := s.storedNode(ctx, id); err != nil {
			return nil, err
		}
		// The node's allocations are lost with it; let their jobs
		// replace them.
		nodeEvals, err := nodeAllocEvals(s.State(), id, now)
		if err != nil {
			return nil, err
		}
		evals = append(evals, nodeEvals...)
	}
	entry := &logentry.NodeDeregister{NodeIDs: req.NodeIDs, Evals: evals}
	resp, err := s.applyNodeWrite(ctx, logentry.MsgNodeDeregister, entry, evals)
	if err != nil {
		return nil, err
	}
	for _, id := range req.NodeIDs {
		s.heartbeats.Clear(id)
	}
	return resp, nil
}

// storedNode returns the stored node, or an ErrNotFound error.
func (s *Server) storedNode(ctx context.Context, nodeID string) (*structs.Node, error) {
	if nodeID == "" {
		return nil, invalidf("missing node ID")
	}
	if err := s.leaderBarrier(ctx); err != nil {
		return nil, err
	}
	node, err := s.State().NodeByID(nil, nodeID)
	if err != nil {
		return nil, err
	}
	if node == nil {
		return nil, fmt.Errorf("node %q: %w", nodeID, ErrNotFound)
	}
	return node, nil
}

// applyNodeWrite applies a node entry and reports it.
func (s *Server) applyNodeWrite(ctx context.Context, t logentry.MessageType, entry logentry.Entry, evals []*structs.Evaluation) (*NodeUpdateResponse, error) {
	index, err := s.raftApply(ctx, t, entry)
	if err != nil {
		return nil, err
	}
	resp := &NodeUpdateResponse{NodeModifyIndex: index, Index: index}
	if len(evals) > 0 {
		resp.EvalIDs, resp.EvalCreateIndex = evalIDs(evals), index
	}
	return resp, nil
}

// nodeStatusEvals returns the evaluations a node's move to status calls
// for: a node that becomes ready or down changes where its jobs can run.
func nodeStatusEvals(st *state.StateStore, nodeID, status string, now int64) ([]*structs.Evaluation, error) {
	switch status {
	case structs.NodeStatusReady:
		return nodeEvals(st, nodeID, now)
	case structs.NodeStatusDown:
		return nodeAllocEvals(st, nodeID, now)
	}
	return nil, nil
}

// nodeEvals returns an evaluation for every job with allocations on the
// node and for every system and sysbatch job, which may now run there.
func nodeEvals(st *state.StateStore, nodeID string, now int64) ([]*structs.Evaluation, error) {
	evals, err := nodeAllocEvals(st, nodeID, now)
	if err != nil {
		return nil, err
	}
	seen := make(map[[2]string]bool, len(evals))
	for _, e := range evals {
		seen[[2]string{e.Namespace, e.JobID}] = true
	}
	jobs, err := st.Jobs(nil)
	if err != nil {
		return nil, err
	}
	for _, job := range jobs {
		if job.Type != structs.JobTypeSystem && job.Type != structs.JobTypeSysbatch {
			continue
		}
		if job.Stop || job.LaunchesChildren() || seen[[2]string{job.Namespace, job.ID}] {
			continue
		}
		evals = append(evals, newNodeEval(job.Namespace, job.ID, job.Priority, job.Type, nodeID, now))
	}
	return evals, nil
}

// nodeAllocEvals returns an evaluation for every job with non-terminal
// allocations on the node.
func nodeAllocEvals(st *state.StateStore, nodeID string, now int64) ([]*structs.Evaluation, error) {
	allocs, err := st.AllocsByNode(nil, nodeID)
	if err != nil {
		return nil, err
	}
	var evals []*structs.Evaluation
	seen := make(map[[2]string]bool)
	for _, a := range allocs {
		key := [2]string{a.Namespace, a.JobID}
		if a.TerminalStatus() || seen[key] {
			continue
		}
		seen[key] = true
		priority, jobType := structs.DefaultPriority, ""
		if a.Job != nil {
			priority, jobType = a.Job.Priority, a.Job.Type
		}
		evals = append(evals, newNodeEval(a.Namespace, a.JobID, priority, jobType, nodeID, now))
	}
	return evals, nil
}

func newNodeEval(namespace, jobID string, priority int, jobType, nodeID string, now int64) *structs.Evaluation {
	return &structs.Evaluation{
		ID:          structs.GenerateUUID(),
		Namespace:   namespace,
		Priority:    priority,
		Type:        jobType,
		TriggeredBy: structs.EvalTriggerNodeUpdate,
		JobID:       jobID,
		NodeID:      nodeID,
		Status:      structs.EvalStatusPending,
		CreateTime:  now,
		ModifyTime:  now,
	}
}

func evalIDs(evals []*structs.Evaluation) []string {
	ids := make([]string, len(evals))
	for i, e := range evals {
		ids[i] = e.ID
	}
	return ids
}

// nodeRPC serves the node writes forwarded by other servers.
type nodeRPC struct{ srv *Server }

// Register serves a registration another server forwarded, with the
// permission that server settled.
func (e *nodeRPC) Register(args *NodeRegisterRequest, reply *NodeUpdateResponse) error {
	return e.srv.serveRPC(func(ctx context.Context) error {
		return fill(reply)(e.srv.nodeRegister(ctx, args))
	})
}

// UpdateStatus serves NodeUpdateStatus.
func (e *nodeRPC) UpdateStatus(args *NodeUpdateStatusRequest, reply *NodeUpdateResponse) error {
	return e.srv.serveRPC(func(ctx context.Context) error {
		return fill(reply)(e.srv.NodeUpdateStatus(ctx, args.NodeID, args.Status))
	})
}

// UpdateEligibility serves NodeUpdateEligibility.
func (e *nodeRPC) UpdateEligibility(args *NodeUpdateEligibilityRequest, reply *NodeUpdateResponse) error {
	return e.srv.serveUserRPC(args.AuthToken, func(ctx context.Context) error {
		return fill(reply)(e.srv.NodeUpdateEligibility(ctx, args.NodeID, args.Eligibility))
	})
}

// UpdateDrain serves NodeUpdateDrain.
func (e *nodeRPC) UpdateDrain(args *NodeUpdateDrainRequest, reply *NodeUpdateResponse) error {
	return e.srv.serveUserRPC(args.AuthToken, func(ctx context.Context) error {
		return fill(reply)(e.srv.NodeUpdateDrain(ctx, args.NodeID, args.DrainStrategy, args.MarkEligible))
	})
}

// Deregister serves NodeDeregister.
func (e *nodeRPC) Deregister(args *NodeDeregisterRequest, reply *NodeUpdateResponse) error {
	return e.srv.serveUserRPC(args.AuthToken, func(ctx context.Context) error {
		return fill(reply)(e.srv.NodeDeregister(ctx, args.NodeIDs))
	})
}

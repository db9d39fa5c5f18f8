package nomad

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/drover-io/drover/nomad/logentry"
	nomadrpc "github.com/drover-io/drover/nomad/rpc"
)

// RaftApplyRequest is a log entry forwarded to the leader as it is.
type RaftApplyRequest struct {
	WriteDeadline
	Type  logentry.MessageType
	Entry json.RawMessage
}

// Apply appends a log entry of type msgType, built by the caller, and
// returns the index it was applied at. req must be the entry type of
// msgType (a *logentry.JobRegister for MsgJobRegister, and so on). A job
// the entry registers is checked as a registered one is, here, before the
// entry goes to the leader.
func (s *Server) Apply(ctx context.Context, msgType logentry.MessageType, req any) (uint64, error) {
	entry, ok := req.(logentry.Entry)
	if !ok || entry == nil {
		return 0, invalidf("apply %s: %T is not a log entry", msgType, req)
	}
	if got := entry.MessageType(); got != msgType {
		return 0, invalidf("apply %s: got a %s entry", msgType, got)
	}
	if reg, ok := entry.(*logentry.JobRegister); ok && reg.Job != nil {
		if err := s.checkSubmittedJob(ctx, reg.Job); err != nil {
			return 0, err
		}
	}
	body, err := json.Marshal(entry)
	if err != nil {
		return 0, fmt.Errorf("apply %s: encode entry: %w", msgType, err)
	}
	resp, err := leaderWrite(ctx, s, "Raft.Apply", &RaftApplyRequest{Type: msgType, Entry: body}, s.applyLocal)
	if err != nil {
		return 0, err
	}
	return resp.Index, nil
}

func (s *Server) applyLocal(ctx context.Context, req *RaftApplyRequest) (*IndexResponse, error) {
	entry, err := logentry.New(req.Type)
	if err != nil {
		return nil, nomadrpc.WithKind(ErrInvalidRequest, err)
	}
	if err := json.Unmarshal(req.Entry, entry); err != nil {
		return nil, invalidf("apply %s: decode entry: %v", req.Type, err)
	}
	index, err := s.raftApply(ctx, req.Type, entry)
	if err != nil {
		return nil, err
	}
	return &IndexResponse{Index: index}, nil
}

// raftRPC serves log entries forwarded by other servers.
type raftRPC struct{ srv *Server }

// Apply serves Server.Apply.
func (e *raftRPC) Apply(args *RaftApplyRequest, reply *IndexResponse) error {
	return e.srv.serveRPC(func(ctx context.Context) error {
		return fill(reply)(leaderWrite(ctx, e.srv, "Raft.Apply", args, e.srv.applyLocal))
	})
}

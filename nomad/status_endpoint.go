package nomad

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/raft"

	"github.com/drover-io/drover/nomad/heartbeat"
	"github.com/drover-io/drover/nomad/membership"
)

// MembersRequest is one server introducing itself, and the servers it
// knows, to another.
type MembersRequest struct {
	From  membership.Member
	Known []membership.Member
}

// MembersResponse is the answering server: itself, the servers it knows
// and where it stands in raft.
type MembersResponse struct {
	Self  membership.Member
	Known []membership.Member

	// HasState reports that the server's raft configuration is not empty:
	// it bootstrapped or joined a cluster.
	HasState    bool
	LeaderID    string
	LeaderRPC   string
	RaftServers []RaftServer

	// Heartbeats are the client heartbeats the server took and could not
	// forward to the leader, and LeaderTrouble why it cannot reach the
	// leader; both are told only to the leader, which takes the
	// heartbeats (package heartbeat).
	Heartbeats    []heartbeat.Relayed `json:",omitempty"`
	LeaderTrouble string              `json:",omitempty"`
}

// RaftServer is one entry of a raft configuration.
type RaftServer struct {
	ID      string
	Address string
	Voter   bool
}

// JoinRequest asks the leader to add a server to the raft configuration as
// a voter (or to update the address of one already in it).
type JoinRequest struct {
	WriteDeadline
	ID      string
	RPCAddr string
}

// JoinResponse is the raft index of the configuration change.
type JoinResponse struct {
	Index uint64
}

// statusRPC serves server-to-server membership calls.
type statusRPC struct{ srv *Server }

// Members exchanges what two servers know of the cluster.
func (e *statusRPC) Members(args *MembersRequest, reply *MembersResponse) error {
	return e.srv.serveRPC(func(context.Context) error {
		resp, err := e.srv.exchangeMembers(args)
		if err == nil {
			*reply = *resp
		}
		return err
	})
}

// Join adds the calling server to the cluster; only the leader does.
func (e *statusRPC) Join(args *JoinRequest, reply *JoinResponse) error {
	return e.srv.serveRPC(func(ctx context.Context) error {
		resp, err := leaderWrite(ctx, e.srv, "Status.Join", args, e.srv.joinLocal)
		if err == nil {
			*reply = *resp
		}
		return err
	})
}

// exchangeMembers records the caller and what it knows, and describes this
// server.
func (s *Server) exchangeMembers(args *MembersRequest) (*MembersResponse, error) {
	if args.From.ID == "" || args.From.RPCAddr == "" {
		return nil, invalidf("members exchange: caller has no ID or RPC address")
	}
	if args.From.Region != s.config.Region {
		return nil, invalidf("members exchange: server %q is in region %q, this server in region %q",
			args.From.Name, args.From.Region, s.config.Region)
	}
	s.members.Contacted(args.From)
	s.members.HeardOf(sameRegion(args.Known, s.config.Region))

	resp := &MembersResponse{Self: s.members.Self(), Known: s.Members()}
	leaderAddr, leaderID := s.raft.LeaderWithID()
	resp.LeaderID, resp.LeaderRPC = string(leaderID), string(leaderAddr)
	conf, err := s.raftConfiguration()
	if err != nil {
		return nil, fmt.Errorf("read raft configuration: %w", err)
	}
	resp.HasState = len(conf.Servers) > 0
	resp.RaftServers = raftServers(conf)
	if leaderID != "" && args.From.ID == string(leaderID) && s.leaderReach.Failing(string(leaderAddr)) {
		resp.Heartbeats = s.relay.List()
		if err := s.leaderReach.Trouble(string(leaderAddr)); err != nil {
			resp.LeaderTrouble = err.Error()
		}
	}
	return resp, nil
}

// joinLocal adds a server to the raft configuration. The caller made sure
// this server is the leader.
func (s *Server) joinLocal(_ context.Context, req *JoinRequest) (*JoinResponse, error) {
	if req.ID == "" || req.RPCAddr == "" {
		return nil, invalidf("join: server ID and RPC address are required")
	}
	f := s.raft.AddVoter(raft.ServerID(req.ID), raft.ServerAddress(req.RPCAddr), 0, raftMembershipTimeout)
	if err := f.Error(); err != nil {
		return nil, fmt.Errorf("add server %s at %s: %w", req.ID, req.RPCAddr, raftWriteError(err))
	}
	s.logger.Info("added server to the cluster", "id", req.ID, "address", req.RPCAddr)
	return &JoinResponse{Index: f.Index()}, nil
}

// raftMembershipTimeout bounds a raft configuration change.
const raftMembershipTimeout = 30 * time.Second

func raftServers(conf raft.Configuration) []RaftServer {
	out := make([]RaftServer, 0, len(conf.Servers))
	for _, srv := range conf.Servers {
		out = append(out, RaftServer{
			ID:      string(srv.ID),
			Address: string(srv.Address),
			Voter:   srv.Suffrage == raft.Voter,
		})
	}
	return out
}

func sameRegion(ms []membership.Member, region string) []membership.Member {
	var out []membership.Member
	for _, m := range ms {
		if m.Region == region {
			out = append(out, m)
		}
	}
	return out
}

package nomad

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
)

// membershipLoop contacts the other servers: quickly while this server is
// not part of a cluster (to form or join one), slowly afterwards (to keep
// member statuses current).
func (s *Server) membershipLoop(ctx context.Context) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	attempts := joinAttempts{max: s.config.JoinMaxAttempts, pending: len(s.joinAddrs) > 0}
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		wait := s.config.MemberProbeInterval
		inCluster, probes := s.probeMembers(ctx)
		if !inCluster {
			wait = s.config.JoinInterval
		}
		if ctx.Err() == nil && attempts.record(inCluster || s.reachedJoinAddr(probes)) {
			err := fmt.Errorf("server_join: none of %s answered in %s", strings.Join(s.joinAddrs, ", "), attempts)
			s.logger.Error("giving up joining a cluster", "error", err)
			s.joinFailed <- err
			return
		}
		timer.Reset(wait)
	}
}

// JoinFailed delivers an error when the server gave up joining a cluster
// (see Config.JoinMaxAttempts). The agent exits on it, as Nomad's does
// when retry_max runs out.
func (s *Server) JoinFailed() <-chan error { return s.joinFailed }

// joinAttempts counts the rounds in which none of the join addresses
// answered, until one does.
type joinAttempts struct {
	max     int
	failed  int
	pending bool // join addresses are configured and none has answered
}

func (a joinAttempts) String() string {
	if a.failed == 1 {
		return "1 attempt"
	}
	return fmt.Sprintf("%d attempts", a.failed)
}

// record notes a round's outcome and reports whether the limit is reached.
func (a *joinAttempts) record(reached bool) bool {
	if !a.pending {
		return false
	}
	if reached {
		a.pending = false
		return false
	}
	a.failed++
	return a.max > 0 && a.failed >= a.max
}

// reachedJoinAddr reports whether one of the configured join addresses
// answered in the round.
func (s *Server) reachedJoinAddr(probes []probe) bool {
	for _, p := range probes {
		if p.err == nil && slices.Contains(s.joinAddrs, p.addr) {
			return true
		}
	}
	return false
}

// probe is the outcome of one members exchange.
type probe struct {
	addr string
	resp *MembersResponse
	err  error
}

// probeMembers exchanges members with every server this server knows of and
// takes the step towards a cluster that the answers allow. It reports
// whether this server is part of a cluster, and the round's probes.
func (s *Server) probeMembers(ctx context.Context) (bool, []probe) {
	probes := s.exchangeWithAll(ctx)
	if ctx.Err() != nil {
		return false, probes
	}

	self := s.members.Self()
	for _, p := range probes {
		// Only the leader's own configuration is authoritative; a
		// follower's may lag behind it.
		if p.err != nil || p.resp.LeaderID == "" || p.resp.Self.ID != p.resp.LeaderID {
			continue
		}
		if inRaftConfig(p.resp.RaftServers, self.ID, self.RPCAddr) {
			continue
		}
		// A cluster with a leader exists and does not list this server
		// (or lists it at an old address): ask its leader to add us.
		s.requestJoin(ctx, p.resp.LeaderRPC)
		return s.hasRaftState(), probes
	}
	if s.hasRaftState() {
		return true, probes
	}
	s.maybeBootstrap(probes)
	return false, probes
}

// exchangeWithAll runs a members exchange with every known server address
// in parallel.
func (s *Server) exchangeWithAll(ctx context.Context) []probe {
	addrs := s.probeTargets()
	req := &MembersRequest{From: s.members.Self(), Known: s.Members()}
	// Connecting may take up to the dial timeout; the exchange itself is
	// a few map lookups on the other side.
	timeout := s.config.RPCDialTimeout + 2*time.Second

	probes := make([]probe, len(addrs))
	var wg sync.WaitGroup
	for i, addr := range addrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			callCtx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			var resp MembersResponse
			err := s.pool.Call(callCtx, addr, "Status.Members", req, &resp)
			if addr == s.Leader() && callCtx.Err() == nil {
				s.leaderReach.Record(addr, err)
			}
			probes[i] = probe{addr: addr, err: err}
			if err == nil {
				probes[i].resp = &resp
			}
		}()
	}
	wg.Wait()

	for _, p := range probes {
		if p.err != nil {
			if nomadrpc.RefusedCredentials(p.err) {
				s.logger.Warn("server refused this server's credentials: do all servers have the same encrypt key (or certificates of the same CA)?",
					"address", p.addr, "error", p.err)
			} else {
				s.logger.Debug("server unreachable", "address", p.addr, "error", p.err)
			}
			s.members.Unreachable(p.addr)
			continue
		}
		if p.resp.Self.Region != s.config.Region {
			s.logger.Warn("ignoring server of another region", "address", p.addr, "region", p.resp.Self.Region)
			continue
		}
		s.members.Contacted(p.resp.Self)
		s.members.HeardOf(sameRegion(p.resp.Known, s.config.Region))
		s.takeRelayedHeartbeats(p.resp.Self, p.resp)
	}
	return probes
}

// probeTargets lists the RPC addresses to contact: the configured join
// addresses, the known members and the raft configuration, without this
// server.
func (s *Server) probeTargets() []string {
	seen := map[string]bool{s.advertise: true}
	var out []string
	add := func(addr string) {
		if addr != "" && !seen[addr] {
			seen[addr] = true
			out = append(out, addr)
		}
	}
	for _, addr := range s.joinAddrs {
		add(addr)
	}
	for _, m := range s.Members() {
		add(m.RPCAddr)
	}
	slices.Sort(out)
	return out
}

// requestJoin asks the leader at leaderAddr to add this server.
func (s *Server) requestJoin(ctx context.Context, leaderAddr string) {
	self := s.members.Self()
	callCtx, cancel := context.WithTimeout(ctx, raftMembershipTimeout)
	defer cancel()
	var resp JoinResponse
	err := s.pool.Call(callCtx, leaderAddr, "Status.Join", &JoinRequest{ID: self.ID, RPCAddr: self.RPCAddr}, &resp)
	if err != nil {
		s.logger.Warn("join cluster", "leader", leaderAddr, "error", err)
		return
	}
	s.logger.Info("joined cluster", "leader", leaderAddr, "index", resp.Index)
}

// maybeBootstrap bootstraps a new cluster once BootstrapExpect servers
// know of each other and every one of them answered that it is not part
// of a cluster yet.
func (s *Server) maybeBootstrap(probes []probe) {
	expect := s.config.BootstrapExpect
	if expect <= 1 {
		// Bootstrapped at start unless raft had state; nothing to form.
		return
	}
	answered := make(map[string]bool)
	for _, p := range probes {
		if p.err != nil || p.resp.Self.Region != s.config.Region {
			continue
		}
		if p.resp.HasState || p.resp.LeaderRPC != "" {
			return // a cluster exists; its leader will reach us or we join it
		}
		answered[p.resp.Self.ID] = true
	}
	self := s.members.Self()
	members := s.members.List()
	for _, m := range members {
		if m.ID != self.ID && !answered[m.ID] {
			return // cannot vouch that m is not in a cluster yet
		}
		if m.BootstrapExpect != 0 && m.BootstrapExpect != expect {
			s.logger.Warn("servers disagree on bootstrap_expect", "server", m.Name, "expect", m.BootstrapExpect, "ours", expect)
		}
	}
	if len(members) < expect {
		return
	}
	if len(members) > expect {
		// Servers that saw different sets would bootstrap different
		// first configurations, which raft cannot reconcile. Refuse.
		s.logger.Error("more servers than bootstrap_expect and none in a cluster yet; not bootstrapping",
			"servers", len(members), "expect", expect)
		return
	}
	if err := s.bootstrapWith(members); err != nil {
		s.logger.Error("bootstrap cluster", "error", err)
	}
}

// hasRaftState reports whether this server's raft configuration lists any
// server: it bootstrapped or was added to a cluster.
func (s *Server) hasRaftState() bool {
	conf, err := s.raftConfiguration()
	return err == nil && len(conf.Servers) > 0
}

func inRaftConfig(servers []RaftServer, id, addr string) bool {
	for _, srv := range servers {
		if srv.ID == id {
			return srv.Address == addr
		}
	}
	return false
}

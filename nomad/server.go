package nomad

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/rpc"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/drover-io/drover/nomad/broker"
	"github.com/drover-io/drover/nomad/heartbeat"
	"github.com/drover-io/drover/nomad/jobstatus"
	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/nomad/maxrunstats"
	"github.com/drover-io/drover/nomad/membership"
	"github.com/drover-io/drover/nomad/pendingtimeout"
	"github.com/drover-io/drover/nomad/periodic"
	"github.com/drover-io/drover/nomad/raftstore"
	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/nomad/stream"
	"github.com/drover-io/drover/nomad/varlock"
	"github.com/drover-io/drover/version"
)

// Server is a Drover server: it holds the cluster state, replicated with
// raft, serves the other servers over RPC and takes writes, forwarding them
// to the leader when it is not the leader.
type Server struct {
	config    *Config
	logger    hclog.Logger
	nodeID    string
	advertise string   // RPC address other servers dial
	joinAddrs []string // normalised ServerJoin

	// maxRunStats is the server's max_run_duration view for dashboards.
	maxRunStats *maxrunstats.Stats

	listener  net.Listener
	raftLayer *nomadrpc.RaftLayer
	mux       *nomadrpc.Mux
	pool      *nomadrpc.Pool
	// leaderWatch wakes forwarded calls when the leader changes;
	// leaderReach follows whether this server can connect to the leader,
	// and relay holds the client heartbeats it could not forward.
	leaderWatch *leaderWatch
	leaderReach *nomadrpc.LeaderReach
	relay       *heartbeat.Relay
	// secrets are what peers prove on the RPC port.
	secrets nomadrpc.AcceptorSecrets

	fsm           *FSM
	events        *stream.Broker // nil when the event stream is off
	raft          *raft.Raft
	raftTransport *raft.NetworkTransport
	raftStores    *raftstore.Stores
	barrierTerm   atomic.Uint64
	// caughtUp is set once this server's state has caught up with a
	// leader's since it started (read_index.go).
	caughtUp atomic.Bool

	members *membership.Table

	// aclCache holds the ACLs compiled from policies, for ResolveToken.
	aclCache aclCache

	// varLocks are the leader's timers of variable locks, enabled while
	// it leads (variables_locks.go).
	varLocks *varlock.Timers

	// The leader's components: created with the server, enabled while it
	// leads.
	evalBroker   *broker.EvalBroker
	blockedEvals *broker.BlockedEvals
	// pendingTimers give up placements that waited longer than their
	// group's max_pending_duration (pending_timeout.go).
	pendingTimers *pendingtimeout.Timers
	planQueue     *broker.PlanQueue
	planLatency   *nomadrpc.LatencySamples
	// planSubmitLatency is planLatency plus the wait in the plan queue.
	planSubmitLatency *nomadrpc.LatencySamples
	heartbeats        *heartbeat.Timers
	periodic          *periodic.Dispatcher
	// dispatchMu keeps two dispatches with an idempotency token from
	// both finding no earlier child (job_dispatch.go).
	dispatchMu sync.Mutex
	jobStatus  *jobstatus.Updater
	// gcMu keeps two garbage collection passes from running at once
	// (gc_endpoint.go).
	gcMu sync.Mutex

	// joinFailed receives the error once JoinMaxAttempts rounds found
	// none of the join addresses.
	joinFailed chan error
	// leaderRestart asks monitorLeadership to stop the leader's loops and,
	// if this server still leads, start them afresh; it closes the channel
	// sent once that is done. A snapshot restore uses it.
	leaderRestart chan chan struct{}

	shutdownCtx    context.Context
	shutdownCancel context.CancelFunc
	loops          sync.WaitGroup
	shutdownOnce   sync.Once
	shutdownErr    error
}

// NewServer starts a server: it binds the RPC port, starts raft and the
// loops that form or join a cluster, and returns once it is listening. It
// does not wait for a leader; see WaitForLeader.
func NewServer(cfg *Config) (*Server, error) {
	if cfg == nil {
		return nil, errors.New("new server: no configuration")
	}
	cfg = cfg.withDefaults()
	if cfg.BootstrapExpect < 0 {
		return nil, fmt.Errorf("bootstrap_expect must not be negative, got %d", cfg.BootstrapExpect)
	}
	s := &Server{config: cfg, logger: cfg.Logger.Named("server")}
	s.shutdownCtx, s.shutdownCancel = context.WithCancel(context.Background())
	s.joinFailed = make(chan error, 1)
	s.leaderRestart = make(chan chan struct{})
	s.leaderWatch = newLeaderWatch()
	s.leaderReach = &nomadrpc.LeaderReach{After: cfg.LeaderUnreachableAfter}
	s.relay = heartbeat.NewRelay(cfg.MinHeartbeatTTL + cfg.HeartbeatGrace)
	if err := s.setup(); err != nil {
		if serr := s.Shutdown(); serr != nil {
			s.logger.Error("clean up after failed start", "error", serr)
		}
		return nil, err
	}
	s.loops.Add(6)
	go func() {
		defer s.loops.Done()
		s.membershipLoop(s.shutdownCtx)
	}()
	go func() {
		defer s.loops.Done()
		s.watchLeader(s.shutdownCtx)
	}()
	go func() {
		defer s.loops.Done()
		s.monitorLeaderReach(s.shutdownCtx)
	}()
	go func() {
		defer s.loops.Done()
		s.maxRunStats.Run(s.shutdownCtx, s.logger, s.State)
	}()
	go func() {
		defer s.loops.Done()
		s.syncLoop(s.shutdownCtx)
	}()
	go func() {
		defer s.loops.Done()
		s.monitorLeadership(s.shutdownCtx)
	}()
	s.logger.Info("server started", "id", s.nodeID, "rpc", s.advertise, "region", cfg.Region, "datacenter", cfg.Datacenter)
	return s, nil
}

func (s *Server) setup() error {
	var err error
	for _, addr := range s.config.ServerJoin {
		norm, err := normalizeServerAddr(addr)
		if err != nil {
			return fmt.Errorf("server_join: %w", err)
		}
		s.joinAddrs = append(s.joinAddrs, norm)
	}
	if s.nodeID, err = s.config.loadNodeID(); err != nil {
		return err
	}
	if err := s.setupSecrets(); err != nil {
		return err
	}
	if s.fsm, err = NewFSM(s.logger.Named("fsm")); err != nil {
		return err
	}
	if !s.config.DisableEvents {
		s.events = stream.NewBroker(s.config.EventBufferSize, 0)
		s.fsm.Listen(eventListener(s.events))
	}
	s.maxRunStats = maxrunstats.New(time.Now(), nil)
	s.fsm.Listen(maxRunListener(s.maxRunStats))
	s.setupLeaderComponents()

	s.listener, err = net.ListenTCP("tcp", s.config.RPCAddr)
	if err != nil {
		return fmt.Errorf("listen for RPC on %s: %w", s.config.RPCAddr, err)
	}
	if s.advertise, err = advertiseAddr(s.config.RPCAdvertise, s.listener.Addr().(*net.TCPAddr)); err != nil {
		return err
	}

	servers, err := s.newRPCServers()
	if err != nil {
		return err
	}
	// One instance ID for what this server dials and what it accepts: a
	// connection of its own that comes back to it is refused.
	instance := nomadrpc.NewInstanceID()
	dialer := nomadrpc.NewDialer(nomadrpc.Credentials{Role: nomadrpc.RoleServer, Secret: s.secrets.ClusterKey}, instance)
	auth := nomadrpc.MuxAuth{Secrets: s.secrets, Instance: instance, Region: s.config.Region}
	if t := s.config.TLS; t != nil {
		dialer.TLS = t.DialConfig(s.config.Region)
		auth.TLS = t.AcceptConfig()
	}
	s.pool = nomadrpc.NewPool(s.config.RPCDialTimeout, dialer)
	s.raftLayer = nomadrpc.NewRaftLayer(stringAddr(s.advertise), dialer)
	s.mux = nomadrpc.NewMux(s.listener, s.raftLayer, servers, auth, nomadrpc.MuxLimits{
		HandshakeTimeout: s.config.RPCHandshakeTimeout,
		MaxConnsPerIP:    s.config.RPCMaxConnsPerClient,
	}, s.logger.Named("rpc"))

	s.members = membership.NewTable(membership.Member{
		ID:              s.nodeID,
		Name:            s.config.NodeName + "." + s.config.Region,
		Region:          s.config.Region,
		Datacenter:      s.config.Datacenter,
		RPCAddr:         s.advertise,
		HTTPAddr:        s.config.HTTPAddr,
		BootstrapExpect: s.config.BootstrapExpect,
		Build:           version.Version,
	})
	if err := s.setupRaft(); err != nil {
		return err
	}
	// Serve only once everything the endpoints use exists; until then
	// connections wait in the listen backlog.
	s.mux.Start()
	return nil
}

// registerEndpoints publishes the RPC endpoints.
func (s *Server) registerEndpoints(srv *rpc.Server) error {
	endpoints := map[string]any{
		"Status":     &statusRPC{s},
		"Client":     &clientRPC{srv: s, role: nomadrpc.RoleServer},
		"Job":        &jobRPC{s},
		"Eval":       &evalRPC{s},
		"Alloc":      &allocRPC{s},
		"Deployment": &deploymentRPC{s},
		"Node":       &nodeRPC{s},
		"Raft":       &raftRPC{s},
		"Periodic":   &periodicRPC{s},
		"ACL":        &aclRPC{s},
		"Namespace":  &namespaceRPC{s},
		"Keyring":    &keyringRPC{s},
		"Variables":  &variablesRPC{variablesReadRPC{s}},
		"Service":    &serviceRPC{serviceReadRPC{s}},
		"System":     &systemRPC{s},
	}
	for name, rcvr := range endpoints {
		if err := srv.RegisterName(name, rcvr); err != nil {
			return fmt.Errorf("register RPC endpoint %s: %w", name, err)
		}
	}
	return nil
}

// setupLeaderComponents creates what the leader runs and lets the FSM tell
// them what it applies.
func (s *Server) setupLeaderComponents() {
	cfg := s.config
	s.evalBroker = broker.NewEvalBroker(broker.Config{
		NackTimeout:         cfg.EvalNackTimeout,
		DeliveryLimit:       cfg.EvalDeliveryLimit,
		InitialNackDelay:    cfg.EvalNackInitialDelay,
		SubsequentNackDelay: cfg.EvalNackSubsequentDelay,
	})
	s.blockedEvals = broker.NewBlockedEvals(s.evalBroker)
	s.planQueue = broker.NewPlanQueue()
	s.planLatency = &nomadrpc.LatencySamples{}
	s.planSubmitLatency = &nomadrpc.LatencySamples{}
	s.heartbeats = heartbeat.NewTimers(heartbeat.Config{
		MinTTL:       cfg.MinHeartbeatTTL,
		MaxPerSecond: cfg.MaxHeartbeatsPerSecond,
		Grace:        cfg.HeartbeatGrace,
		FailoverTTL:  cfg.FailoverHeartbeatTTL,
	}, s.logger.Named("heartbeat"), s.expireNode)
	s.periodic = periodic.NewDispatcher(s.logger.Named("periodic"), serverLauncher{s}, time.Now)
	s.jobStatus = jobstatus.NewUpdater(s.logger.Named("job_status"), s.State, func(e *logentry.JobStatusUpdate) error {
		_, err := s.raftApply(context.Background(), logentry.MsgJobStatusUpdate, e)
		return err
	})
	s.varLocks = varlock.New(s.expireVariableLock)
	s.pendingTimers = pendingtimeout.New(s.expirePending)
	s.fsm.Listen(Listener{Apply: s.observeApply})
}

// PlanApplyStats summarises the latest plan applications: the time from
// the applier taking a plan until its result was committed.
func (s *Server) PlanApplyStats() nomadrpc.LatencyStats { return s.planLatency.Stats() }

// PlanSubmitStats summarises the latest plan submissions: the time from a
// worker submitting a plan until it has the result, queueing included.
func (s *Server) PlanSubmitStats() nomadrpc.LatencyStats { return s.planSubmitLatency.Stats() }

// EvalBrokerStats counts the evaluations the broker holds.
func (s *Server) EvalBrokerStats() broker.BrokerStats { return s.evalBroker.Stats() }

// advertiseAddr settles the address other servers dial.
func advertiseAddr(configured string, bound *net.TCPAddr) (string, error) {
	if configured != "" {
		addr, err := normalizeServerAddr(configured)
		if err != nil {
			return "", fmt.Errorf("RPC advertise address: %w", err)
		}
		return addr, nil
	}
	if bound.IP.IsUnspecified() {
		return "", fmt.Errorf("RPC bound to %s: an advertise address other servers can reach is required", bound)
	}
	return bound.String(), nil
}

// stringAddr is a net.Addr that is just a "host:port".
type stringAddr string

func (a stringAddr) Network() string { return "tcp" }
func (a stringAddr) String() string  { return string(a) }

// Shutdown stops the server: raft, the RPC listener and its connections,
// and the background loops. It is safe to call more than once.
func (s *Server) Shutdown() error {
	s.shutdownOnce.Do(func() {
		s.logger.Info("shutting down server")
		s.shutdownCancel()
		s.loops.Wait()

		var errs []error
		if err := s.shutdownRaft(); err != nil {
			errs = append(errs, err)
		}
		if s.events != nil {
			s.events.Close()
		}
		if s.raftLayer != nil {
			s.raftLayer.Close()
		}
		if s.mux != nil {
			if err := s.mux.Close(); err != nil {
				errs = append(errs, fmt.Errorf("close RPC listener: %w", err))
			}
		} else if s.listener != nil {
			s.listener.Close()
		}
		if s.pool != nil {
			s.pool.Close()
		}
		s.shutdownErr = errors.Join(errs...)
	})
	return s.shutdownErr
}

// Config returns the server's configuration, with defaults filled in.
func (s *Server) Config() *Config { return s.config }

// NodeID returns the server's ID in the raft configuration.
func (s *Server) NodeID() string { return s.nodeID }

// RPCAddr returns the address the RPC listener is bound to.
func (s *Server) RPCAddr() net.Addr { return s.listener.Addr() }

// RPCAdvertise returns the RPC address other servers dial.
func (s *Server) RPCAdvertise() string { return s.advertise }

// Raft returns the raft instance, for tests.
func (s *Server) Raft() *raft.Raft { return s.raft }

// FSM returns the server's FSM, where the eval hook is installed.
func (s *Server) FSM() *FSM { return s.fsm }

// State returns the current state store. A snapshot restore replaces the
// store, so fetch it again for every read or blocking query.
func (s *Server) State() *state.StateStore { return s.fsm.State() }

// IsLeader reports whether this server is the raft leader.
func (s *Server) IsLeader() bool { return s.raft.State() == raft.Leader }

// Leader returns the leader's RPC address, or "" when no leader is known.
func (s *Server) Leader() string {
	addr, _ := s.raft.LeaderWithID()
	return string(addr)
}

// KnownLeader reports whether this server knows a leader.
func (s *Server) KnownLeader() bool { return s.Leader() != "" }

// LeaderHTTPAddr returns the leader's HTTP address, or "" when no leader is
// known or it has not told its HTTP address yet.
func (s *Server) LeaderHTTPAddr() string {
	_, id := s.raft.LeaderWithID()
	if id == "" {
		return ""
	}
	m, _ := s.members.ByID(string(id))
	return m.HTTPAddr
}

// LastContact returns how long ago this server last heard from the leader:
// 0 on the leader itself.
func (s *Server) LastContact() time.Duration {
	if s.IsLeader() {
		return 0
	}
	last := s.raft.LastContact()
	if last.IsZero() {
		return 0
	}
	return time.Since(last)
}

// Peers returns the RPC addresses of the servers in the raft
// configuration, sorted.
func (s *Server) Peers() []string {
	conf, err := s.raftConfiguration()
	if err != nil {
		s.logger.Warn("read raft configuration", "error", err)
		return nil
	}
	peers := make([]string, 0, len(conf.Servers))
	for _, srv := range conf.Servers {
		peers = append(peers, string(srv.Address))
	}
	slices.Sort(peers)
	return peers
}

// Members returns the servers this server knows of: those it has talked to
// or heard of, and those in the raft configuration, sorted by ID.
func (s *Server) Members() []membership.Member {
	members := s.members.List()
	conf, err := s.raftConfiguration()
	if err != nil {
		return members
	}
	for _, srv := range conf.Servers {
		i := slices.IndexFunc(members, func(m membership.Member) bool { return m.ID == string(srv.ID) })
		if i < 0 {
			members = append(members, membership.Member{
				ID:      string(srv.ID),
				RPCAddr: string(srv.Address),
				Region:  s.config.Region,
				Status:  membership.StatusFailed,
			})
			i = len(members) - 1
		}
		members[i].Voter = srv.Suffrage == raft.Voter
	}
	slices.SortFunc(members, func(a, b membership.Member) int {
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	return members
}

// WaitForLeader blocks until the cluster has a leader or ctx ends.
func (s *Server) WaitForLeader(ctx context.Context) error {
	ticker := time.NewTicker(20 * time.Millisecond)
	defer ticker.Stop()
	for {
		if s.KnownLeader() {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for leader: %w", ctx.Err())
		case <-ticker.C:
		}
	}
}

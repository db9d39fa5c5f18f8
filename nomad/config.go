package nomad

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/drover-io/drover/nomad/gc"
	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/structs"
)

// DefaultRPCPort is the port servers listen on for raft and RPC traffic.
const DefaultRPCPort = 4647

// Config is what a server needs to start.
type Config struct {
	Region     string
	Datacenter string
	NodeName   string

	// NodeID identifies the server in the raft configuration. With a DataDir
	// it is generated once and kept in <DataDir>/server/node-id, so a
	// restarted server keeps its place in the cluster; an explicit NodeID
	// must match the persisted one.
	NodeID string

	// DataDir holds the raft log, stable store and snapshots under
	// <DataDir>/server. Empty keeps everything in memory; such a server
	// forgets its state when it stops.
	DataDir string

	// DevMode keeps raft in memory and the node ID unpersisted even when
	// DataDir is set (the agent's data dir then serves only the client).
	DevMode bool

	// RPCAddr is the address the raft/RPC listener binds. Port 0 picks a free
	// port; the bound address is then reported by Server.RPCAddr.
	RPCAddr *net.TCPAddr

	// RPCAdvertise is the "host:port" other servers dial to reach this one.
	// Empty means the bound address, which must then be a specific IP.
	RPCAdvertise string

	// HTTPAddr is this agent's HTTP address, told to the other servers so
	// they can point clients at the leader's or a node's HTTP API.
	HTTPAddr string

	// BootstrapExpect is the number of servers that form a new cluster
	// together. 0 or 1 bootstraps this server alone.
	BootstrapExpect int

	// ServerJoin lists other servers' RPC addresses, "host" or "host:port".
	ServerJoin []string

	Logger hclog.Logger

	// RaftConfig, when set, is the base raft configuration; LocalID and the
	// logger are filled in by the server. Tests use it for short timeouts.
	RaftConfig *raft.Config

	// JoinInterval is how often a server that is not yet part of a cluster
	// contacts the servers it knows of.
	JoinInterval time.Duration

	// JoinMaxAttempts is how many rounds of contacting the ServerJoin
	// addresses may go unanswered by all of them before the server gives
	// up and reports it on JoinFailed; 0 keeps trying for ever. Once one
	// of them has answered, the limit no longer applies.
	JoinMaxAttempts int

	// MemberProbeInterval is how often a server in a cluster contacts the
	// other servers to refresh their status.
	MemberProbeInterval time.Duration

	// RPCDialTimeout bounds connecting to another server, the handshake
	// included.
	RPCDialTimeout time.Duration

	// ClusterKey is the servers' shared secret (the agent's
	// server.encrypt): a server proves it to the others before it takes
	// part in raft or calls an endpoint only servers may call, and client
	// agents prove the registration secret derived from it (see
	// RegistrationSecret) before they register new nodes. Empty gives the
	// server a random key of its own: it can then be a cluster of one
	// only, whose nodes register through the agent's own client.
	ClusterKey []byte

	// TLS, when set, runs every RPC and raft connection over mutual TLS;
	// peers' certificates then say what they are, and ClusterKey is not
	// needed to form a cluster.
	TLS *nomadrpc.TLS

	// RPCHandshakeTimeout bounds how long an accepted connection may take
	// to say what it carries and prove who its peer is.
	RPCHandshakeTimeout time.Duration

	// RPCMaxConnsPerClient caps the RPC connections open at once from
	// one IP address; 0 is no cap.
	RPCMaxConnsPerClient int

	// ForwardTimeout bounds a write forwarded to the leader, including the
	// wait for a leader to be elected, when the caller's context has no
	// deadline of its own.
	ForwardTimeout time.Duration

	// LeaderUnreachableAfter is how long this server's attempts to open a
	// connection to the leader must keep failing, while raft still
	// follows that leader, before it reports the leader unreachable (see
	// Server.LeaderUnreachable) and refuses at once the writes it would
	// have to forward.
	LeaderUnreachableAfter time.Duration

	// RaftApplyTimeout bounds the enqueueing of one raft log entry.
	RaftApplyTimeout time.Duration

	// NumSchedulers is how many scheduling workers the leader runs: nil
	// means one per CPU core, and 0 that this server schedules nothing
	// (evaluations wait in the broker), as Nomad's num_schedulers.
	NumSchedulers *int

	// EvalNackTimeout is how long a worker may hold an evaluation without
	// acknowledging it (plan submission excluded) before the broker takes
	// it back and delivers it again.
	EvalNackTimeout time.Duration

	// EvalDeliveryLimit is how many times an evaluation is delivered
	// before it is marked failed and a follow-up is scheduled.
	EvalDeliveryLimit int

	// EvalNackInitialDelay and EvalNackSubsequentDelay are how long a
	// negatively acknowledged evaluation waits before it is delivered
	// again: the first time, and every later time.
	EvalNackInitialDelay    time.Duration
	EvalNackSubsequentDelay time.Duration

	// EvalFailedFollowupDelay is how long the follow-up of a failed
	// evaluation waits before it runs.
	EvalFailedFollowupDelay time.Duration

	// MinHeartbeatTTL is the floor of a node's heartbeat TTL; the TTL
	// grows with the number of nodes so that the leader receives at most
	// MaxHeartbeatsPerSecond heartbeats.
	MinHeartbeatTTL        time.Duration
	MaxHeartbeatsPerSecond float64

	// HeartbeatGrace is added to a node's TTL before it is marked down,
	// to absorb network and scheduling delays.
	HeartbeatGrace time.Duration

	// FailoverHeartbeatTTL is the TTL a new leader gives every node it
	// inherits, so that clients have time to find it.
	FailoverHeartbeatTTL time.Duration

	// EventBufferSize is how many events the server holds for its event
	// stream, the look-back a new subscriber can resume from; zero means
	// DefaultEventBufferSize.
	EventBufferSize int

	// DisableEvents turns the event stream off: the FSM publishes no
	// events and subscriptions are refused.
	DisableEvents bool

	// JobLimits bound the jobs this server registers, plans and
	// schedules (the agent's limits block); a zero field takes the
	// default.
	JobLimits structs.JobLimits

	// ACLEnabled makes the server check the ACL token of every request it
	// serves for a user. Every server of a cluster must agree on it.
	ACLEnabled bool

	// GCInterval is job_gc_interval, how often the leader collects
	// garbage (nomad/gc), and GCThresholds the thresholds; a zero field
	// takes Nomad's default. DisableGC turns the periodic pass off
	// (`system gc` still collects).
	GCInterval   time.Duration
	GCThresholds gc.Thresholds
	DisableGC    bool
}

// DefaultConfig returns a configuration for a single server on the default
// RPC port, region "global", datacenter "dc1".
func DefaultConfig() *Config {
	hostname, err := os.Hostname()
	if err != nil || hostname == "" {
		hostname = "drover"
	}
	return &Config{
		Region:               structs.DefaultRegion,
		Datacenter:           "dc1",
		NodeName:             hostname,
		RPCAddr:              &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: DefaultRPCPort},
		BootstrapExpect:      1,
		RaftConfig:           raft.DefaultConfig(),
		JoinInterval:         500 * time.Millisecond,
		MemberProbeInterval:  5 * time.Second,
		RPCDialTimeout:       5 * time.Second,
		RPCHandshakeTimeout:  5 * time.Second,
		RPCMaxConnsPerClient: 100,
		ForwardTimeout:       30 * time.Second,
		// Longer than raft takes to replace a leader that died (a few
		// election timeouts), shorter than a node's minimum TTL and
		// grace, so that a client told to try another server still
		// makes it in time.
		LeaderUnreachableAfter: 10 * time.Second,
		RaftApplyTimeout:       30 * time.Second,

		EvalNackTimeout:         60 * time.Second,
		EvalDeliveryLimit:       3,
		EvalNackInitialDelay:    time.Second,
		EvalNackSubsequentDelay: 20 * time.Second,
		EvalFailedFollowupDelay: time.Minute,

		MinHeartbeatTTL:        10 * time.Second,
		MaxHeartbeatsPerSecond: 50,
		HeartbeatGrace:         10 * time.Second,
		FailoverHeartbeatTTL:   5 * time.Minute,

		JobLimits: structs.DefaultJobLimits(),
	}
}

// withDefaultLimits fills the zero fields of l from d.
func withDefaultLimits(l, d structs.JobLimits) structs.JobLimits {
	if l.MaxCount <= 0 {
		l.MaxCount = d.MaxCount
	}
	if l.MaxGroups <= 0 {
		l.MaxGroups = d.MaxGroups
	}
	if l.MaxTasksPerGroup <= 0 {
		l.MaxTasksPerGroup = d.MaxTasksPerGroup
	}
	if l.MaxSize <= 0 {
		l.MaxSize = d.MaxSize
	}
	return l
}

// withDefaults returns a copy of c with every unset field filled from
// DefaultConfig, so callers may build a Config by hand.
func (c *Config) withDefaults() *Config {
	d := DefaultConfig()
	out := *c
	if out.Region == "" {
		out.Region = d.Region
	}
	if out.Datacenter == "" {
		out.Datacenter = d.Datacenter
	}
	if out.NodeName == "" {
		out.NodeName = d.NodeName
	}
	if out.RPCAddr == nil {
		out.RPCAddr = d.RPCAddr
	}
	if out.Logger == nil {
		out.Logger = hclog.NewNullLogger()
	}
	if out.RaftConfig == nil {
		out.RaftConfig = d.RaftConfig
	}
	out.JobLimits = withDefaultLimits(out.JobLimits, d.JobLimits)
	if out.JoinInterval <= 0 {
		out.JoinInterval = d.JoinInterval
	}
	if out.MemberProbeInterval <= 0 {
		out.MemberProbeInterval = d.MemberProbeInterval
	}
	if out.RPCDialTimeout <= 0 {
		out.RPCDialTimeout = d.RPCDialTimeout
	}
	setDefault(&out.RPCHandshakeTimeout, d.RPCHandshakeTimeout)
	if out.ForwardTimeout <= 0 {
		out.ForwardTimeout = d.ForwardTimeout
	}
	setDefault(&out.LeaderUnreachableAfter, d.LeaderUnreachableAfter)
	if out.RaftApplyTimeout <= 0 {
		out.RaftApplyTimeout = d.RaftApplyTimeout
	}
	if out.EventBufferSize <= 0 {
		out.EventBufferSize = DefaultEventBufferSize
	}
	if out.NumSchedulers == nil || *out.NumSchedulers < 0 {
		n := runtime.NumCPU()
		out.NumSchedulers = &n
	}
	setDefault(&out.EvalNackTimeout, d.EvalNackTimeout)
	setDefault(&out.EvalDeliveryLimit, d.EvalDeliveryLimit)
	setDefault(&out.EvalNackInitialDelay, d.EvalNackInitialDelay)
	setDefault(&out.EvalNackSubsequentDelay, d.EvalNackSubsequentDelay)
	setDefault(&out.EvalFailedFollowupDelay, d.EvalFailedFollowupDelay)
	setDefault(&out.MinHeartbeatTTL, d.MinHeartbeatTTL)
	setDefault(&out.MaxHeartbeatsPerSecond, d.MaxHeartbeatsPerSecond)
	setDefault(&out.HeartbeatGrace, d.HeartbeatGrace)
	setDefault(&out.FailoverHeartbeatTTL, d.FailoverHeartbeatTTL)
	setDefault(&out.GCInterval, gc.DefaultInterval)
	dt := gc.DefaultThresholds()
	setDefault(&out.GCThresholds.Job, dt.Job)
	setDefault(&out.GCThresholds.Eval, dt.Eval)
	setDefault(&out.GCThresholds.BatchEval, dt.BatchEval)
	setDefault(&out.GCThresholds.Node, dt.Node)
	out.ServerJoin = append([]string(nil), c.ServerJoin...)
	out.ClusterKey = append([]byte(nil), c.ClusterKey...)
	return &out
}

// setDefault sets *v to def when it is not positive.
func setDefault[T time.Duration | int | float64](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// inMemory reports whether the server keeps nothing on disk.
func (c *Config) inMemory() bool {
	return c.DataDir == "" || c.DevMode
}

// serverDir is where the server keeps its files under the data dir.
func (c *Config) serverDir() string {
	return filepath.Join(c.DataDir, "server")
}

// loadNodeID settles the server's node ID: the one persisted under the data
// dir, else the configured one, else a new one, persisting it when there is
// a data dir.
func (c *Config) loadNodeID() (string, error) {
	if c.inMemory() {
		if c.NodeID != "" {
			return c.NodeID, nil
		}
		return structs.GenerateUUID(), nil
	}
	path := filepath.Join(c.serverDir(), "node-id")
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		id := strings.TrimSpace(string(data))
		if id == "" {
			return "", fmt.Errorf("node ID file %s is empty", path)
		}
		if c.NodeID != "" && c.NodeID != id {
			return "", fmt.Errorf("configured node ID %q differs from %q persisted in %s", c.NodeID, id, path)
		}
		return id, nil
	case errors.Is(err, os.ErrNotExist):
	default:
		return "", fmt.Errorf("read node ID: %w", err)
	}
	id := c.NodeID
	if id == "" {
		id = structs.GenerateUUID()
	}
	if err := os.MkdirAll(c.serverDir(), 0o700); err != nil {
		return "", fmt.Errorf("create server data dir: %w", err)
	}
	if err := writeFileAtomic(path, []byte(id+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("persist node ID: %w", err)
	}
	return id, nil
}

// writeFileAtomic writes data to a temporary file next to path and renames
// it into place, so a crash never leaves a half-written file.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// normalizeServerAddr adds the default RPC port to a join address that has
// none.
func normalizeServerAddr(addr string) (string, error) {
	addr = strings.TrimSpace(addr)
	if addr == "" {
		return "", errors.New("empty server address")
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		// No port: the whole thing is a host (an IPv6 literal may carry
		// brackets).
		host = strings.TrimSuffix(strings.TrimPrefix(addr, "["), "]")
		return net.JoinHostPort(host, fmt.Sprint(DefaultRPCPort)), nil
	}
	if host == "" {
		return "", fmt.Errorf("server address %q has no host", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("server address %q: port must be a number from 1 to 65535", addr)
	}
	return net.JoinHostPort(host, port), nil
}

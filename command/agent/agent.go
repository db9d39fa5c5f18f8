package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/drover-io/drover/client"
	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/internal/tlsutil"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/nomad/gc"
)

// httpShutdownTimeout bounds how long a graceful shutdown waits for HTTP
// requests under way.
const httpShutdownTimeout = 5 * time.Second

// Agent is one running Drover agent: a server, a client or both, and the
// HTTP API in front of them.
type Agent struct {
	config  *config.Config
	logger  hclog.Logger
	metrics *agentMetrics
	server  *nomad.Server  // nil unless the server is enabled
	client  *client.Client // nil unless the client is enabled
	// clientConn is the client's way to the servers; tempAllocDir is the
	// alloc dir the agent made for itself, removed at shutdown.
	clientConn   client.ServerConn
	tempAllocDir string
	http         *HTTPServer
	// tls is the tls block's CA, certificate and key; nil when TLS is
	// off.
	tls *tlsutil.Material
	// tokens resolves ACL secrets when ACLs are enabled: through the
	// agent's own server, else by asking the servers.
	tokens tokenResolver

	shutdownOnce sync.Once
	shutdownErr  error
}

// NewAgent validates cfg and starts the agent: metrics, the server (when
// enabled), the client (when enabled) and the HTTP API. On error, whatever
// was started is stopped again: an agent never runs half-configured.
func NewAgent(cfg *config.Config, logger hclog.Logger) (*Agent, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("invalid agent configuration: %w", err)
	}
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	a := &Agent{config: cfg.Copy(), logger: logger}
	if err := a.start(); err != nil {
		if serr := a.Shutdown(); serr != nil {
			logger.Error("clean up after failed start", "error", serr)
		}
		return nil, err
	}
	return a, nil
}

func (a *Agent) start() error {
	var err error
	if a.metrics, err = startMetrics(a.config.Telemetry); err != nil {
		return fmt.Errorf("set up metrics: %w", err)
	}
	if err := a.loadTLS(); err != nil {
		return err
	}

	// Bind the HTTP port first: the server tells other servers its HTTP
	// address, which is only known once bound (port 0 in tests).
	ln, err := net.Listen("tcp", a.config.HTTPBindAddr())
	if err != nil {
		return fmt.Errorf("listen for HTTP on %s: %w", a.config.HTTPBindAddr(), err)
	}
	// The cap per client counts TCP connections, under any TLS.
	https := a.httpsConfig()
	ln = httpserver.LimitConnsPerClient(ln, a.config.Limits.HTTPMaxConnsPerClient, https, a.logger.Named("http"))
	a.http = newHTTPServer(a, a.httpListener(ln, https), a.logger.Named("http"))

	if a.config.Server.Enabled {
		if err := a.setupServer(); err != nil {
			return err
		}
	}
	if a.config.Client.Enabled {
		if err := a.setupClient(); err != nil {
			return err
		}
	}
	a.setupTokenResolver()
	a.http.Serve()
	a.logger.Info("HTTP API listening", "address", a.http.Addr())
	return nil
}

// setupTokenResolver picks how the HTTP API resolves ACL secrets.
func (a *Agent) setupTokenResolver() {
	if !a.config.ACL.Enabled {
		return
	}
	if a.server != nil {
		a.tokens = serverResolver{a.server}
		return
	}
	if rc, ok := a.clientConn.(*rpcServerConn); ok && a.client != nil {
		a.tokens = newRemoteResolver(rc, a.config.ACL, func() client.NodeIdentity {
			node := a.client.Node()
			return client.NodeIdentity{ID: node.ID, SecretID: node.SecretID}
		})
	}
}

// setupServer starts the server half from the agent configuration.
func (a *Agent) setupServer() error {
	rpcAddr, err := net.ResolveTCPAddr("tcp", a.config.RPCBindAddr())
	if err != nil {
		return fmt.Errorf("RPC address %s: %w", a.config.RPCBindAddr(), err)
	}
	cfg := &nomad.Config{
		Region:          a.config.Region,
		Datacenter:      a.config.Datacenter,
		NodeName:        a.config.NodeName,
		DataDir:         a.config.DataDir,
		DevMode:         a.config.DevMode,
		RPCAddr:         rpcAddr,
		RPCAdvertise:    a.rpcAdvertise(),
		HTTPAddr:        a.httpAdvertise(),
		BootstrapExpect: a.config.Server.BootstrapExpect,
		ClusterKey:      a.config.ClusterKey(),
		TLS:             a.rpcTLS(),

		RPCMaxConnsPerClient: a.config.Limits.RPCMaxConnsPerClient,
		RPCHandshakeTimeout:  a.config.Limits.RPCHandshakeTimeout,
		NumSchedulers:        a.config.Server.NumSchedulers,
		ServerJoin:           append(append([]string(nil), a.config.Server.StartJoin...), a.config.Server.RetryJoin...),
		Logger:               a.logger,
		EventBufferSize:      a.config.Server.EventBufferSize,
		DisableEvents:        !a.config.Server.EnableEventBroker,
		JobLimits:            a.config.Limits.JobLimits(),
		ACLEnabled:           a.config.ACL.Enabled,
		GCInterval:           a.config.Server.JobGCInterval,
		GCThresholds: gc.Thresholds{
			Job:       a.config.Server.JobGCThreshold,
			Eval:      a.config.Server.EvalGCThreshold,
			BatchEval: a.config.Server.BatchEvalGCThreshold,
			Node:      a.config.Server.NodeGCThreshold,
		},
	}
	if a.config.Server.RetryInterval > 0 {
		cfg.JoinInterval = a.config.Server.RetryInterval
	}
	cfg.JoinMaxAttempts = joinMaxAttempts(a.config.Server)
	if t := a.config.Server.MinHeartbeatTTL; t > 0 {
		cfg.MinHeartbeatTTL = t
	}
	if r := a.config.Server.MaxHeartbeatsPerSecond; r > 0 {
		cfg.MaxHeartbeatsPerSecond = r
	}
	if g := a.config.Server.HeartbeatGrace; g > 0 {
		cfg.HeartbeatGrace = g
	}
	if a.config.DevMode {
		cfg.RaftConfig = devRaftConfig()
	}
	srv, err := nomad.NewServer(cfg)
	if err != nil {
		return fmt.Errorf("start server: %w", err)
	}
	a.server = srv
	return nil
}

// devRaftConfig shortens raft's timeouts for dev mode: one in-memory server
// on the loopback address elects itself within a tenth of a second instead
// of the seconds a production cluster's timeouts take. With itself as the
// only voter, a short lease cannot cost it its leadership: it is its own
// quorum.
func devRaftConfig() *raft.Config {
	rc := raft.DefaultConfig()
	rc.HeartbeatTimeout = 50 * time.Millisecond
	rc.ElectionTimeout = 50 * time.Millisecond
	rc.LeaderLeaseTimeout = 50 * time.Millisecond
	return rc
}

// rpcAdvertise is the RPC address other servers dial: the advertise
// address when set, else the bound address when it is a specific one (the
// server then uses what it bound, which matters for port 0), else this
// machine's first private address.
func (a *Agent) rpcAdvertise() string {
	bind := cmp.Or(a.config.Addresses.RPC, a.config.BindAddr)
	adv := a.config.AdvertiseAddrs.RPC
	if adv == "" {
		if ip := net.ParseIP(bind); ip != nil && !ip.IsUnspecified() {
			return ""
		}
	}
	return withDefaultPort(advertiseHost(adv, bind), a.config.Ports.RPC)
}

// httpAdvertise is the HTTP address other agents and CLIs reach this agent
// on.
func (a *Agent) httpAdvertise() string {
	_, port, err := net.SplitHostPort(a.http.Addr())
	if err != nil {
		port = strconv.Itoa(a.config.Ports.HTTP)
	}
	bind := cmp.Or(a.config.Addresses.HTTP, a.config.BindAddr)
	adv := a.config.AdvertiseAddrs.HTTP
	if _, _, err := net.SplitHostPort(adv); err == nil {
		return adv
	}
	return net.JoinHostPort(advertiseHost(adv, bind), port)
}

// withDefaultPort returns addr with port added when it has none.
func withDefaultPort(addr string, port int) string {
	if _, _, err := net.SplitHostPort(addr); err == nil {
		return addr
	}
	return net.JoinHostPort(addr, strconv.Itoa(port))
}

// Config returns the agent's configuration. Callers must not modify it.
func (a *Agent) Config() *config.Config { return a.config }

// Server returns the agent's server, or nil when it runs none.
func (a *Agent) Server() *nomad.Server { return a.server }

// Client returns the agent's client, or nil when it runs none.
func (a *Agent) Client() *client.Client { return a.client }

// HTTPAddr is the address the HTTP API is bound to, with the real port.
func (a *Agent) HTTPAddr() string { return a.http.Addr() }

// Shutdown stops the agent gracefully: the HTTP API first (requests under
// way get httpShutdownTimeout to finish), then the client, then the server.
// It is safe to call more than once.
func (a *Agent) Shutdown() error {
	a.shutdownOnce.Do(func() {
		a.logger.Info("shutting down agent")
		var errs []error
		if a.http != nil {
			ctx, cancel := context.WithTimeout(context.Background(), httpShutdownTimeout)
			if err := a.http.Shutdown(ctx); err != nil {
				errs = append(errs, fmt.Errorf("stop HTTP API: %w", err))
			}
			cancel()
		}
		if a.client != nil {
			if err := a.client.Shutdown(); err != nil {
				errs = append(errs, fmt.Errorf("stop client: %w", err))
			}
		}
		if rc, ok := a.clientConn.(*rpcServerConn); ok {
			rc.Close()
		}
		if a.tempAllocDir != "" {
			if err := os.RemoveAll(a.tempAllocDir); err != nil {
				errs = append(errs, fmt.Errorf("remove temporary alloc dir: %w", err))
			}
		}
		if a.server != nil {
			if err := a.server.Shutdown(); err != nil {
				errs = append(errs, fmt.Errorf("stop server: %w", err))
			}
		}
		if a.metrics != nil {
			a.metrics.shutdown()
		}
		a.shutdownErr = errors.Join(errs...)
	})
	return a.shutdownErr
}

// joinMaxAttempts is how many unanswered rounds of join attempts the
// server makes before the agent gives up, as in Nomad: retry_max for
// retry_join (0: for ever), and a single round for start_join alone,
// whose servers must answer at start.
func joinMaxAttempts(c config.ServerConfig) int {
	switch {
	case len(c.RetryJoin) > 0:
		return c.RetryMaxAttempts
	case len(c.StartJoin) > 0:
		return 1
	}
	return 0
}

// Failed delivers an error when the agent cannot go on: its server gave
// up joining a cluster. The agent command exits on it.
func (a *Agent) Failed() <-chan error {
	if a.server == nil {
		return nil
	}
	return a.server.JoinFailed()
}

// advertiseHost picks the address other machines reach this agent on: the
// configured advertise address, else the bind address when it is a concrete
// one, else the first private address of this machine.
func advertiseHost(advertise, bind string) string {
	if advertise != "" {
		return advertise
	}
	if ip := net.ParseIP(bind); ip != nil && !ip.IsUnspecified() {
		return bind
	}
	return detectedAddr()
}

// detectedAddr is the first non-loopback IPv4 address of an interface that is
// up, falling back to the loopback address on a machine without one.
func detectedAddr() string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return "127.0.0.1"
	}
	for _, a := range addrs {
		ipnet, ok := a.(*net.IPNet)
		if !ok || ipnet.IP.IsLoopback() || ipnet.IP.To4() == nil || ipnet.IP.IsLinkLocalUnicast() {
			continue
		}
		return ipnet.IP.String()
	}
	return "127.0.0.1"
}

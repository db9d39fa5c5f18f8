package config

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"net/netip"
	"os"
	"slices"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/drover-io/drover/client/allocrunner/taskrunner"
	"github.com/drover-io/drover/internal/netguard"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/structs"
)

// Default ports, the same as Nomad's.
const (
	DefaultHTTPPort = 4646
	DefaultRPCPort  = 4647
)

// DefaultServicePrefix starts every metric name, as Nomad's do, so that
// dashboards built for Nomad keep working.
const DefaultServicePrefix = "nomad"

// Config is the agent's whole configuration once files and flags have been
// merged. Every field has its final value: no pointers, no "unset".
type Config struct {
	Region     string
	Datacenter string
	NodeName   string
	// DataDir holds the server's raft data and the client's state. Empty only
	// in dev mode, which keeps everything in memory.
	DataDir  string
	BindAddr string
	LogLevel string

	Ports          Ports
	Addresses      Addresses
	AdvertiseAddrs Addresses

	Server ServerConfig
	Client ClientConfig

	// Plugins maps a driver name ("raw_exec") to its plugin configuration.
	Plugins map[string]*PluginConfig

	Telemetry TelemetryConfig

	TLS TLSConfig
	// Limits bound what one client, request or job may cost the agent.
	Limits LimitsConfig

	ACL ACLConfig

	// DevMode runs a single in-memory server and a client on this machine.
	DevMode bool

	// Files lists the configuration files that were loaded, in order.
	Files []string
	// Warnings are what the agent logs at WARN once it has a logger: the
	// Nomad settings the files set that Drover has no use for, and values
	// that mean less than they seem to.
	Warnings []string

	// TaskSupervisorCmd runs the raw_exec driver's task supervisor; empty
	// means this executable's hidden "task-supervisor" command. It has no
	// configuration key: only tests, whose executable is a test binary,
	// point it elsewhere.
	TaskSupervisorCmd []string
}

// Ports are the TCP ports the agent listens on. Zero picks a free port, which
// only tests want.
type Ports struct {
	HTTP int
	RPC  int
}

// Addresses are per-protocol addresses; an empty one falls back to BindAddr
// (for binding) or to a detected address (for advertising).
type Addresses struct {
	HTTP string
	RPC  string
}

// ServerConfig configures the server half of the agent.
type ServerConfig struct {
	Enabled         bool
	BootstrapExpect int
	// NumSchedulers is how many scheduling workers the server runs; nil
	// means one per CPU core, 0 none.
	NumSchedulers *int
	// RetryJoin lists servers to join, retried until it works.
	RetryJoin []string
	// StartJoin lists servers to join once at start.
	StartJoin []string
	// RetryInterval is the wait between join attempts.
	RetryInterval time.Duration
	// RetryMaxAttempts bounds the join attempts; zero retries forever.
	RetryMaxAttempts int
	// MinHeartbeatTTL, MaxHeartbeatsPerSecond and HeartbeatGrace tune how
	// soon a silent node is marked down; zero keeps the server's default.
	MinHeartbeatTTL        time.Duration
	MaxHeartbeatsPerSecond float64
	HeartbeatGrace         time.Duration
	// EnableEventBroker turns the event stream (/v1/event/stream) on, and
	// EventBufferSize is how many events it holds for subscribers to
	// resume from.
	EnableEventBroker bool
	EventBufferSize   int
	// EncryptKey is the servers' shared cluster key, base64 (Nomad's
	// encrypt). Empty gives a server a random key of its own.
	EncryptKey string
	// Garbage collection: job_gc_interval and the thresholds; zero
	// keeps Nomad's defaults.
	JobGCInterval        time.Duration
	JobGCThreshold       time.Duration
	EvalGCThreshold      time.Duration
	BatchEvalGCThreshold time.Duration
	NodeGCThreshold      time.Duration
}

// ClientConfig configures the client half of the agent.
type ClientConfig struct {
	Enabled   bool
	Servers   []string
	NodeClass string
	NodePool  string
	Meta      map[string]string
	Options   map[string]string
	// ChrootEnv maps host paths to their places in an exec task's root;
	// empty means the exec driver's default.
	ChrootEnv map[string]string
	// StateDir and AllocDir default to directories under DataDir.
	StateDir string
	AllocDir string
	// Artifact says where artifacts may be fetched from and bounds what
	// an archive may unpack to.
	Artifact taskrunner.ArtifactConfig
	// HostVolumes are the directories offered to jobs by name (the
	// host_volume blocks).
	HostVolumes map[string]*structs.ClientHostVolume
	// RegistrationSecret, base64, lets a client agent without a server of
	// its own register new nodes (see RegistrationSecret in nomad/rpc).
	RegistrationSecret string
	// Network is the node's ports and reservations (client_network.go).
	Network ClientNetwork
	// Garbage collection of allocation directories: gc_interval,
	// gc_max_allocs, gc_disk_usage_threshold, gc_inode_usage_threshold,
	// gc_parallel_destroys; zero keeps Nomad's defaults.
	GCInterval            time.Duration
	GCMaxAllocs           int
	GCDiskUsageThreshold  float64
	GCInodeUsageThreshold float64
	GCParallelDestroys    int
}

// PluginConfig is one driver's plugin block.
type PluginConfig struct {
	Name string
	// Config holds the plugin's config block as plain Go values (bool,
	// float64, string, []any, map[string]any).
	Config map[string]any
}

// ACLConfig is the acl block: whether the agent checks ACL tokens, and,
// on an agent without a server, how long it keeps what the servers told it
// of a token and of a policy before it asks again.
type ACLConfig struct {
	Enabled   bool
	TokenTTL  time.Duration
	PolicyTTL time.Duration
}

// TelemetryConfig configures metrics.
type TelemetryConfig struct {
	CollectionInterval       time.Duration
	InMemoryInterval         time.Duration
	InMemoryRetention        time.Duration
	DisableHostname          bool
	PrometheusMetrics        bool
	PublishAllocationMetrics bool
	PublishNodeMetrics       bool
	// ServicePrefix starts every metric name ("nomad" unless set). Drover's
	// own setting: Nomad's prefix is fixed.
	ServicePrefix string
}

// DefaultConfig is the base every configuration starts from.
func DefaultConfig() *Config {
	return &Config{
		Region:     "global",
		Datacenter: "dc1",
		NodeName:   hostname(),
		BindAddr:   "0.0.0.0",
		LogLevel:   "INFO",
		Ports:      Ports{HTTP: DefaultHTTPPort, RPC: DefaultRPCPort},
		Server: ServerConfig{
			RetryInterval:     30 * time.Second,
			EnableEventBroker: true,
			EventBufferSize:   nomad.DefaultEventBufferSize,
		},
		Client: ClientConfig{
			NodePool: "default",
			Meta:     map[string]string{},
			Options:  map[string]string{},
			Artifact: *taskrunner.DefaultArtifactConfig(),
			Network: ClientNetwork{
				MinDynamicPort: structs.DefaultMinDynamicPort,
				MaxDynamicPort: structs.DefaultMaxDynamicPort,
			},
		},
		Plugins: map[string]*PluginConfig{},
		ACL:     ACLConfig{TokenTTL: 30 * time.Second, PolicyTTL: 30 * time.Second},
		Telemetry: TelemetryConfig{
			CollectionInterval: time.Second,
			InMemoryRetention:  time.Minute,
			// Metric names without the host name, as dashboards expect
			// (nomad_client_allocs_..., not nomad_<host>_client_...): the
			// node's identity is in the labels. Unlike Nomad, where the
			// host name is in by default; a config file may set false.
			DisableHostname: true,
			ServicePrefix:   DefaultServicePrefix,
		},
		Limits: DefaultLimitsConfig(),
	}
}

// DevConfig is the configuration of `drover agent -dev`: one in-memory server
// and a client on the loopback address, with raw_exec enabled.
func DevConfig() *Config {
	c := DefaultConfig()
	c.DevMode = true
	c.BindAddr = "127.0.0.1"
	c.Server.Enabled = true
	c.Server.BootstrapExpect = 1
	c.Client.Enabled = true
	c.Plugins["raw_exec"] = &PluginConfig{Name: "raw_exec", Config: map[string]any{"enabled": true}}
	// Artifacts may come from a server on the machine itself (python3 -m
	// http.server, the examples): a dev agent serves one user, on
	// 127.0.0.1, who may read its loopback services anyway.
	c.Client.Artifact.Addresses = netguard.DefaultPolicy().WithAllowed(
		netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128"))
	c.Telemetry.PrometheusMetrics = true
	// Allocation metrics stay off, as outside dev mode: eight series per
	// running task cost the agent about 50 KiB per task, measured, on a
	// budget of 3 MiB per task. A config file turns them on.
	c.Telemetry.PublishNodeMetrics = true
	return c
}

func hostname() string {
	name, err := os.Hostname()
	if err != nil || name == "" {
		return "drover"
	}
	return name
}

// Copy returns a deep copy, so that flags can be applied to a loaded
// configuration without touching the original.
func (c *Config) Copy() *Config {
	out := *c
	out.Server.RetryJoin = slices.Clone(c.Server.RetryJoin)
	out.Server.StartJoin = slices.Clone(c.Server.StartJoin)
	out.Client.Servers = slices.Clone(c.Client.Servers)
	out.Client.Meta = maps.Clone(c.Client.Meta)
	out.Client.Options = maps.Clone(c.Client.Options)
	out.Client.ChrootEnv = maps.Clone(c.Client.ChrootEnv)
	out.Client.HostVolumes = maps.Clone(c.Client.HostVolumes) // its values are replaced, never changed
	out.Files = slices.Clone(c.Files)
	out.Warnings = slices.Clone(c.Warnings)
	out.TaskSupervisorCmd = slices.Clone(c.TaskSupervisorCmd)
	out.Plugins = make(map[string]*PluginConfig, len(c.Plugins))
	for name, p := range c.Plugins {
		out.Plugins[name] = &PluginConfig{Name: p.Name, Config: maps.Clone(p.Config)}
	}
	return &out
}

// Validate reports every problem with the configuration at once.
func (c *Config) Validate() error {
	var errs []error
	if !c.DevMode && c.DataDir == "" {
		errs = append(errs, errors.New("data_dir is required unless the agent runs in dev mode (-dev)"))
	}
	if !c.Server.Enabled && !c.Client.Enabled {
		errs = append(errs, errors.New("at least one of server or client must be enabled (server { enabled = true } or client { enabled = true })"))
	}
	if c.Region == "" {
		errs = append(errs, errors.New("region must not be empty"))
	}
	if c.Datacenter == "" {
		errs = append(errs, errors.New("datacenter must not be empty"))
	}
	if c.NodeName == "" {
		errs = append(errs, errors.New("name must not be empty"))
	}
	errs = append(errs, validatePort("ports.http", c.Ports.HTTP))
	errs = append(errs, validatePort("ports.rpc", c.Ports.RPC))
	if c.Server.MinHeartbeatTTL < 0 {
		errs = append(errs, fmt.Errorf("server.min_heartbeat_ttl must not be negative, not %s", c.Server.MinHeartbeatTTL))
	}
	for name, d := range map[string]time.Duration{
		"job_gc_interval": c.Server.JobGCInterval, "job_gc_threshold": c.Server.JobGCThreshold,
		"eval_gc_threshold": c.Server.EvalGCThreshold, "batch_eval_gc_threshold": c.Server.BatchEvalGCThreshold,
		"node_gc_threshold": c.Server.NodeGCThreshold, "client.gc_interval": c.Client.GCInterval,
	} {
		if d < 0 {
			errs = append(errs, fmt.Errorf("%s must not be negative, not %s", name, d))
		}
	}
	for name, p := range map[string]float64{
		"client.gc_disk_usage_threshold": c.Client.GCDiskUsageThreshold, "client.gc_inode_usage_threshold": c.Client.GCInodeUsageThreshold,
	} {
		if p < 0 || p > 100 {
			errs = append(errs, fmt.Errorf("%s is a percentage, 0 to 100, not %g", name, p))
		}
	}
	if c.Client.GCMaxAllocs < 0 || c.Client.GCParallelDestroys < 0 {
		errs = append(errs, fmt.Errorf("client.gc_max_allocs and client.gc_parallel_destroys must be 0 or more, not %d and %d", c.Client.GCMaxAllocs, c.Client.GCParallelDestroys))
	}
	if c.Server.HeartbeatGrace < 0 {
		errs = append(errs, fmt.Errorf("server.heartbeat_grace must not be negative, not %s", c.Server.HeartbeatGrace))
	}
	if c.Server.MaxHeartbeatsPerSecond < 0 {
		errs = append(errs, fmt.Errorf("server.max_heartbeats_per_second must not be negative, not %g", c.Server.MaxHeartbeatsPerSecond))
	}
	if c.Server.EventBufferSize < 1 {
		errs = append(errs, fmt.Errorf("server.event_buffer_size must be at least 1, not %d (enable_event_broker = false turns the event stream off)", c.Server.EventBufferSize))
	}
	if n := c.Server.NumSchedulers; n != nil && *n < 0 {
		errs = append(errs, fmt.Errorf("server.num_schedulers must be 0 or more, not %d", *n))
	}
	if c.Server.BootstrapExpect < 0 {
		errs = append(errs, fmt.Errorf("server.bootstrap_expect must be 0 or more, not %d", c.Server.BootstrapExpect))
	}
	if c.Server.RetryMaxAttempts < 0 {
		errs = append(errs, fmt.Errorf("server.server_join.retry_max must be 0 or more, not %d", c.Server.RetryMaxAttempts))
	}
	if c.Client.Enabled {
		errs = append(errs, c.Client.Network.validate()...)
	}
	if c.Client.Enabled {
		_, derr := c.DockerPluginConfig()
		_, jerr := c.JavaPluginConfig()
		_, xerr := c.Exec2PluginConfig()
		errs = append(errs, derr, jerr, xerr)
	}
	if hclog.LevelFromString(c.LogLevel) == hclog.NoLevel {
		errs = append(errs, fmt.Errorf("log_level %q is not one of TRACE, DEBUG, INFO, WARN, ERROR", c.LogLevel))
	}
	errs = append(errs, validateIP("bind_addr", c.BindAddr))
	errs = append(errs, validateIP("addresses.http", c.Addresses.HTTP))
	errs = append(errs, validateIP("addresses.rpc", c.Addresses.RPC))
	if c.Telemetry.CollectionInterval <= 0 {
		errs = append(errs, fmt.Errorf("telemetry.collection_interval must be positive, not %s", c.Telemetry.CollectionInterval))
	}
	if c.Telemetry.InMemoryInterval < 0 {
		errs = append(errs, fmt.Errorf("telemetry.in_memory_collection_interval must be positive, not %s", c.Telemetry.InMemoryInterval))
	}
	if c.Telemetry.InMemoryRetention <= 0 {
		errs = append(errs, fmt.Errorf("telemetry.in_memory_retention_period must be positive, not %s", c.Telemetry.InMemoryRetention))
	}
	if c.ACL.TokenTTL <= 0 {
		errs = append(errs, fmt.Errorf("acl.token_ttl must be positive, not %s", c.ACL.TokenTTL))
	}
	if c.ACL.PolicyTTL <= 0 {
		errs = append(errs, fmt.Errorf("acl.policy_ttl must be positive, not %s", c.ACL.PolicyTTL))
	}
	if c.Telemetry.ServicePrefix == "" {
		errs = append(errs, errors.New("telemetry.service_prefix must not be empty"))
	}
	errs = append(errs, c.TLS.validate())
	errs = append(errs, c.validateSecrets())
	errs = append(errs, c.Limits.validate()...)
	return errors.Join(errs...)
}

func validatePort(name string, port int) error {
	if port < 0 || port > 65535 {
		return fmt.Errorf("%s must be between 0 and 65535, not %d", name, port)
	}
	return nil
}

func validateIP(name, addr string) error {
	if addr == "" {
		return nil
	}
	if net.ParseIP(addr) == nil {
		return fmt.Errorf("%s %q is not an IP address", name, addr)
	}
	return nil
}

// HTTPBindAddr is the host:port the HTTP API listens on.
func (c *Config) HTTPBindAddr() string {
	return net.JoinHostPort(firstNonEmpty(c.Addresses.HTTP, c.BindAddr), fmt.Sprint(c.Ports.HTTP))
}

// RPCBindAddr is the host:port the server's RPC (raft) listener binds.
func (c *Config) RPCBindAddr() string {
	return net.JoinHostPort(firstNonEmpty(c.Addresses.RPC, c.BindAddr), fmt.Sprint(c.Ports.RPC))
}

// InMemoryCollectionInterval is the aggregation interval of the in-memory
// metrics sink behind /v1/metrics.
func (t TelemetryConfig) InMemoryCollectionInterval() time.Duration {
	if t.InMemoryInterval > 0 {
		return t.InMemoryInterval
	}
	return t.CollectionInterval
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

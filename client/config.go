package client

import (
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"
	metrics "github.com/hashicorp/go-metrics"

	"github.com/drover-io/drover/client/allocrunner/taskrunner"
	"github.com/drover-io/drover/client/cni"
	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/structs"
)

// Defaults of the client's timing and garbage collection.
const (
	// DefaultUpdateWindow is how long the client collects allocation
	// updates before it sends them to the servers in one request: short
	// enough that an allocation that ends shows on the servers within a
	// fraction of a second, long enough that a burst of task events
	// travels as one write.
	DefaultUpdateWindow = 50 * time.Millisecond
	// DefaultHeartbeatTTL is the heartbeat TTL assumed when the servers
	// name none.
	DefaultHeartbeatTTL = 10 * time.Second
	// DefaultAllocsWait bounds one blocking query for the node's
	// allocations.
	DefaultAllocsWait = 5 * time.Minute
	// DefaultGCMaxAllocs is how many finished allocations the client keeps
	// (their directories and logs) before it removes the oldest, Nomad's
	// gc_max_allocs.
	DefaultGCMaxAllocs = 50
)

// Config is what a client needs.
type Config struct {
	Logger hclog.Logger

	// NodeName, Datacenter, NodeClass, NodePool and Meta describe the node
	// as the scheduler sees it.
	NodeName   string
	Datacenter string
	NodeClass  string
	NodePool   string
	Meta       map[string]string
	// HostVolumes are the directories the operator offers to jobs by
	// name, reported in the node and mounted into tasks.
	HostVolumes map[string]*structs.ClientHostVolume
	// HTTPAddr is the agent's HTTP address, where `alloc logs` and the
	// other /v1/client endpoints reach this node.
	HTTPAddr string
	// HTTPS says that the agent serves its HTTP API over TLS only, so that
	// the CLI and other agents reach the node with https.
	HTTPS bool

	// StateDir keeps the node ID and the client state database. Empty
	// keeps both in memory (dev mode): a restarted client is a new node.
	StateDir string
	// AllocDir holds one directory per allocation.
	AllocDir string

	// Artifact bounds what an artifact archive may unpack to; nil means
	// taskrunner.DefaultArtifactConfig.
	Artifact *taskrunner.ArtifactConfig

	// Drivers are the task drivers this node offers. The client owns them
	// from now on and shuts them down with itself.
	Drivers *drivers.Catalog
	// Servers is the way to the servers.
	Servers ServerConn

	// Network is what the node offers of its ports (host_network.go).
	Network NetworkConfig
	// CNI configures the group networks with a namespace of their own
	// (network_namespaces.go); its StateDir is the client's.
	CNI cni.Config

	// DestroyOnShutdown stops every allocation when the client shuts down
	// instead of leaving tasks running for the next agent; dev mode does
	// that, as it keeps no state to re-attach from.
	DestroyOnShutdown bool

	// UpdateWindow, HeartbeatTTL, AllocsWait and GCMaxAllocs default to
	// the constants above when zero.
	UpdateWindow time.Duration
	HeartbeatTTL time.Duration
	AllocsWait   time.Duration
	GCMaxAllocs  int
	// GCInterval, GCDiskUsageThreshold, GCInodeUsageThreshold and
	// GCParallelDestroys are Nomad's client settings of the same names
	// (gc.go); zero takes Nomad's default.
	GCInterval            time.Duration
	GCDiskUsageThreshold  float64
	GCInodeUsageThreshold float64
	GCParallelDestroys    int
	// statDisk reads the alloc dir's filesystem; nil is statDisk. Tests
	// replace it.
	statDisk func(path string) (diskUsage, error)

	// NodeID forces the node's ID; empty reads it from StateDir or makes a
	// new one.
	NodeID string

	// MetricsInterval is how often the allocations' time-varying gauges
	// are refreshed: the agent's telemetry collection interval. Zero
	// leaves the alloc runner's default.
	MetricsInterval time.Duration

	// PublishNodeMetrics and PublishAllocationMetrics are the agent's
	// telemetry switches of the same names: every MetricsInterval the
	// client emits the host's resource gauges (memory, CPU, the alloc
	// dir's disk, uptime, allocated and unallocated capacity), and the
	// resource use of each running task.
	PublishNodeMetrics       bool
	PublishAllocationMetrics bool
	// Metrics receives the client's resource gauges. Nil means go-metrics'
	// global instance, looked up at each emission so that it follows the
	// agent's sinks.
	Metrics *metrics.Metrics
}

func (c *Config) validate() error {
	var errs []error
	if c.NodeName == "" {
		errs = append(errs, errors.New("node name is required"))
	}
	if c.Datacenter == "" {
		errs = append(errs, errors.New("datacenter is required"))
	}
	if c.AllocDir == "" {
		errs = append(errs, errors.New("alloc dir is required"))
	}
	if c.Drivers == nil {
		errs = append(errs, errors.New("drivers are required"))
	}
	if c.Servers == nil {
		errs = append(errs, errors.New("a server connection is required"))
	}
	if c.GCDiskUsageThreshold < 0 || c.GCDiskUsageThreshold > 100 || c.GCInodeUsageThreshold < 0 || c.GCInodeUsageThreshold > 100 {
		errs = append(errs, fmt.Errorf("gc_disk_usage_threshold and gc_inode_usage_threshold are percentages, 0 to 100, not %g and %g",
			c.GCDiskUsageThreshold, c.GCInodeUsageThreshold))
	}
	if c.UpdateWindow < 0 || c.HeartbeatTTL < 0 || c.AllocsWait < 0 || c.GCMaxAllocs < 0 || c.GCInterval < 0 || c.GCParallelDestroys < 0 {
		errs = append(errs, fmt.Errorf("timings and limits must not be negative"))
	}
	return errors.Join(errs...)
}

// withDefaults returns a copy of c with zero timings and limits set.
func (c *Config) withDefaults() *Config {
	out := *c
	if out.Logger == nil {
		out.Logger = hclog.NewNullLogger()
	}
	if out.NodePool == "" {
		out.NodePool = "default"
	}
	if out.UpdateWindow == 0 {
		out.UpdateWindow = DefaultUpdateWindow
	}
	if out.HeartbeatTTL == 0 {
		out.HeartbeatTTL = DefaultHeartbeatTTL
	}
	if out.AllocsWait == 0 {
		out.AllocsWait = DefaultAllocsWait
	}
	if out.GCMaxAllocs == 0 {
		out.GCMaxAllocs = DefaultGCMaxAllocs
	}
	if out.GCInterval == 0 {
		out.GCInterval = DefaultGCInterval
	}
	if out.GCDiskUsageThreshold == 0 {
		out.GCDiskUsageThreshold = DefaultGCDiskUsageThreshold
	}
	if out.GCInodeUsageThreshold == 0 {
		out.GCInodeUsageThreshold = DefaultGCInodeUsageThreshold
	}
	if out.GCParallelDestroys == 0 {
		out.GCParallelDestroys = DefaultGCParallelDestroys
	}
	return &out
}

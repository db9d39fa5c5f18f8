package client

import (
	"context"
	"errors"
	"fmt"
	"github.com/drover-io/drover/client/allochealth"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/drover-io/drover/client/allocrunner"
	"github.com/drover-io/drover/client/cni"
	"github.com/drover-io/drover/client/state"
	"github.com/drover-io/drover/structs"
)

// ErrUnknownAlloc is returned for an allocation this client does not run.
var ErrUnknownAlloc = errors.New("allocation not found on this client")

// finalFlushTimeout bounds the last send of allocation updates when the
// client shuts down.
const finalFlushTimeout = 3 * time.Second

// Client runs a node's allocations.
type Client struct {
	config  *Config
	logger  hclog.Logger
	conn    ServerConn
	stateDB state.StateDB
	batcher *updateBatcher
	// services registers the allocations' services as they run.
	services *serviceSync
	// network makes the allocations' network namespaces (modes bridge,
	// none and cni/<name>).
	network *cni.Manager
	// health decides the deployment health of the allocations a
	// deployment placed, and adds it to what batcher sends.
	health *allochealth.Watcher
	// node is the node as registered; it does not change after New.
	node *structs.Node
	// jobs keeps one copy of each job version for all the allocations
	// that run it, whichever request or restore brought them.
	jobs structs.JobVersions

	mu      sync.Mutex
	runners map[string]*runnerEntry
	// ignored holds allocations the servers still list that this client
	// does not run: finished ones it garbage collected, or found finished.
	ignored      map[string]bool
	shuttingDown bool

	hbMu          sync.Mutex
	lastHeartbeat time.Time
	heartbeatTTL  time.Duration
	registered    chan struct{}
	allocIndex    uint64

	// hostCPU measures the node's CPU use between host stats requests.
	hostCPU hostCPUSampler

	ctx    context.Context
	cancel context.CancelFunc
	loops  sync.WaitGroup
	runWG  sync.WaitGroup
	// destroySlots holds a token per allocation being destroyed
	// (gc.go).
	destroySlots chan struct{}
	stopped      sync.Once
	stopErr      error
}

// runnerEntry is one allocation the client runs.
type runnerEntry struct {
	ar *allocrunner.AllocRunner
	// index is the AllocModifyIndex of the version the runner has.
	index uint64
	// finishedAt is when the runner's tasks all ended; zero before.
	finishedAt time.Time
	destroying bool
	// destroyed is closed once destroyAlloc has removed the allocation.
	destroyed chan struct{}
}

// New starts a client: it opens the client state, fingerprints the node,
// re-attaches the allocations an earlier agent left running, and starts
// registering, heartbeating and watching for allocations in the
// background. It returns without waiting for the servers.
func New(cfg *Config) (*Client, error) {
	if cfg == nil {
		return nil, errors.New("new client: no configuration")
	}
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("new client: %w", err)
	}
	cfg = cfg.withDefaults()
	c := &Client{
		config:     cfg,
		logger:     cfg.Logger.Named("client"),
		conn:       cfg.Servers,
		runners:    make(map[string]*runnerEntry),
		ignored:    make(map[string]bool),
		registered: make(chan struct{}),
		// destroySlots bounds the allocations destroyed at once
		// (gc_parallel_destroys).
		destroySlots: make(chan struct{}, cfg.GCParallelDestroys),
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.batcher = newUpdateBatcher(c.logger.Named("updates"), cfg.UpdateWindow, func(ctx context.Context, allocs []*structs.Allocation) error {
		return c.conn.UpdateAllocs(ctx, c.identity(), allocs)
	})
	c.health = allochealth.New(c.batcher)
	c.services = newServiceSync(c.logger.Named("services"), c.conn, c.identity, func() *structs.Node { return c.node })

	if err := c.setup(); err != nil {
		c.cancel()
		if c.stateDB != nil {
			c.stateDB.Close()
		}
		return nil, fmt.Errorf("new client: %w", err)
	}

	c.loops.Add(5)
	go func() { defer c.loops.Done(); c.runGC(c.ctx) }()
	go func() { defer c.loops.Done(); c.batcher.run(c.ctx) }()
	go func() { defer c.loops.Done(); c.services.run(c.ctx) }()
	go func() { defer c.loops.Done(); c.registerLoop(c.ctx) }()
	go func() { defer c.loops.Done(); c.watchAllocs(c.ctx) }()
	c.startMetricsPublisher()
	c.logger.Info("client started", "node_id", c.node.ID, "node_name", c.node.Name, "alloc_dir", cfg.AllocDir)
	return c, nil
}

// allocRootMode lets every user reach the allocation directories (a task
// may run as another user) but not list them.
const allocRootMode = 0o711

func (c *Client) setup() error {
	cfg := c.config
	if err := os.MkdirAll(cfg.AllocDir, allocRootMode); err != nil {
		return fmt.Errorf("create alloc dir: %w", err)
	}
	// Set even on a directory that existed (a temporary one is 0700): a
	// task that runs as another user must be able to reach its directory.
	if err := os.Chmod(cfg.AllocDir, allocRootMode); err != nil {
		return fmt.Errorf("set mode of alloc dir: %w", err)
	}
	var err error
	if cfg.StateDir == "" {
		c.stateDB = state.NewMemDB()
	} else if c.stateDB, err = state.OpenBoltStateDB(c.logger, cfg.StateDir); err != nil {
		return err
	}
	id, err := loadNodeIdentity(cfg.NodeID, cfg.StateDir)
	if err != nil {
		return err
	}
	if c.network, err = newNetworkManager(cfg); err != nil {
		return err
	}
	if c.node, err = c.buildNode(id); err != nil {
		return err
	}
	c.restoreRunners()
	c.sweepNetworks()
	return nil
}

// NodeID is the ID of the node this client registers.
func (c *Client) NodeID() string { return c.node.ID }

// identity is the node's ID and secret ID, which every call to the servers
// carries.
func (c *Client) identity() NodeIdentity {
	return NodeIdentity{ID: c.node.ID, SecretID: c.node.SecretID}
}

// Node returns a copy of the node as the client registers it.
func (c *Client) Node() *structs.Node { return c.node.Copy() }

// Registered is closed once the servers have taken the node's first
// registration.
func (c *Client) Registered() <-chan struct{} { return c.registered }

// AllocRunner returns the runner of an allocation this client runs.
func (c *Client) AllocRunner(allocID string) (*allocrunner.AllocRunner, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.runners[allocID]
	if !ok {
		return nil, fmt.Errorf("allocation %q: %w", allocID, ErrUnknownAlloc)
	}
	return e.ar, nil
}

// NumAllocs returns the number of allocations the client holds, running or
// finished.
func (c *Client) NumAllocs() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.runners)
}

// Stats are the client's figures for the agent's /v1/agent/self, under
// Nomad's names.
func (c *Client) Stats() map[string]string {
	c.hbMu.Lock()
	last, ttl := c.lastHeartbeat, c.heartbeatTTL
	c.hbMu.Unlock()
	pending, sent := c.batcher.stats()
	stats := map[string]string{
		"node_id":              c.node.ID,
		"num_allocations":      strconv.Itoa(c.NumAllocs()),
		"heartbeat_ttl":        ttl.String(),
		"last_heartbeat":       "never",
		"known_servers":        "",
		"alloc_updates_sent":   strconv.FormatUint(sent, 10),
		"alloc_updates_queued": strconv.Itoa(pending),
	}
	if !last.IsZero() {
		stats["last_heartbeat"] = time.Since(last).Round(time.Millisecond).String()
	}
	if ks, ok := c.conn.(interface{ KnownServers() []string }); ok {
		stats["known_servers"] = strings.Join(ks.KnownServers(), ",")
	}
	return stats
}

// Shutdown stops the client. Allocations keep running, to be re-attached by
// the next agent on the same state dir, unless the configuration destroys
// them on shutdown (dev mode). The allocations' last states are sent to
// the servers before it returns. It is safe to call more than once.
func (c *Client) Shutdown() error {
	c.stopped.Do(func() {
		c.logger.Info("shutting down client")
		c.cancel()
		c.loops.Wait()

		c.mu.Lock()
		c.shuttingDown = true
		entries := make([]*runnerEntry, 0, len(c.runners))
		for _, e := range c.runners {
			entries = append(entries, e)
		}
		c.mu.Unlock()

		var wg sync.WaitGroup
		for _, e := range entries {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if c.config.DestroyOnShutdown {
					e.ar.Destroy()
				} else {
					e.ar.Shutdown()
				}
			}()
		}
		wg.Wait()
		c.runWG.Wait()
		c.health.Stop()

		ctx, cancel := context.WithTimeout(context.Background(), finalFlushTimeout)
		if err := c.batcher.flush(ctx); err != nil {
			c.logger.Warn("failed to send the last allocation updates", "error", err)
		}
		cancel()

		c.config.Drivers.Shutdown()
		var errs []error
		if err := c.stateDB.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close client state: %w", err))
		}
		c.stopErr = errors.Join(errs...)
	})
	return c.stopErr
}

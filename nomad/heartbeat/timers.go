package heartbeat

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/drover-io/drover/structs"
)

// Config is how the leader times node heartbeats.
type Config struct {
	MinTTL       time.Duration
	MaxPerSecond float64
	Grace        time.Duration
	FailoverTTL  time.Duration
}

// Timers keeps, on the leader, one timer per live node. A node that
// does not heartbeat before its timer fires is marked down.
type Timers struct {
	cfg    Config
	logger hclog.Logger

	// expire marks a node down; it runs on its own goroutine.
	expire func(ctx context.Context, nodeID string)

	mu      sync.Mutex
	enabled bool
	ctx     context.Context // the leader's, while enabled
	epoch   uint64
	timers  map[string]*nodeTimer
	running sync.WaitGroup // expire calls in progress
}

// nodeTimer marks a node down at deadline.
type nodeTimer struct {
	*time.Timer
	deadline time.Time
}

func NewTimers(cfg Config, logger hclog.Logger, expire func(context.Context, string)) *Timers {
	return &Timers{cfg: cfg, logger: logger, expire: expire, timers: make(map[string]*nodeTimer)}
}

// Enable arms heartbeat timers from now on; expirations run with ctx, the
// leader's.
func (h *Timers) Enable(ctx context.Context) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stopAllLocked()
	h.enabled, h.ctx = true, ctx
}

// Disable stops every timer; none is armed until enable.
func (h *Timers) Disable() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stopAllLocked()
	h.enabled, h.ctx = false, nil
}

// stopAllLocked drops every timer and starts a new epoch, so a timer that
// already fired and waits for the lock does nothing.
func (h *Timers) stopAllLocked() {
	for _, t := range h.timers {
		t.Stop()
	}
	h.timers = make(map[string]*nodeTimer)
	h.epoch++
}

// Wait waits for the expirations in progress.
func (h *Timers) Wait() { h.running.Wait() }

// Initialize gives every node that is not down, and has no timer yet, the
// failover TTL: its client may need that long to find the new leader.
func (h *Timers) Initialize(nodes []*structs.Node) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.enabled {
		return
	}
	for _, n := range nodes {
		if n.Status == structs.NodeStatusDown {
			continue
		}
		if _, ok := h.timers[n.ID]; !ok {
			h.armLocked(n.ID, h.cfg.FailoverTTL)
		}
	}
}

// Reset restarts a node's timer and returns the TTL its client should
// heartbeat within. The TTL scales with the number of nodes so that the
// leader receives at most maxPerSecond heartbeats, never below minTTL, and
// is staggered so that nodes spread out; the timer allows a grace period
// on top.
func (h *Timers) Reset(nodeID string) time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	ttl := scaledTTL(h.cfg.MinTTL, h.cfg.MaxPerSecond, len(h.timers))
	ttl += time.Duration(rand.Int64N(int64(ttl)/4 + 1))
	if h.enabled {
		h.armLocked(nodeID, ttl+h.cfg.Grace)
	}
	return ttl
}

// scaledTTL is nodes/maxPerSecond seconds, but at least minTTL.
func scaledTTL(minTTL time.Duration, maxPerSecond float64, nodes int) time.Duration {
	if maxPerSecond <= 0 {
		return minTTL
	}
	return max(minTTL, time.Duration(float64(nodes)/maxPerSecond*float64(time.Second)))
}

// Relayed restarts a node's timer for a heartbeat its client sent to
// another server age ago, which that server could not forward (see
// relay.go), unless the timer already runs longer. It reports
// whether it restarted the timer: not for a node that is not watched
// (down, unknown, or this server does not lead).
func (h *Timers) Relayed(nodeID string, age time.Duration) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	t, ok := h.timers[nodeID]
	if !h.enabled || !ok {
		return false
	}
	after := scaledTTL(h.cfg.MinTTL, h.cfg.MaxPerSecond, len(h.timers)) + h.cfg.Grace - age
	if after <= 0 || !time.Now().Add(after).After(t.deadline) {
		return false
	}
	h.armLocked(nodeID, after)
	return true
}

func (h *Timers) armLocked(nodeID string, after time.Duration) {
	if t, ok := h.timers[nodeID]; ok {
		t.Stop()
	}
	epoch := h.epoch
	t := &nodeTimer{deadline: time.Now().Add(after)}
	t.Timer = time.AfterFunc(after, func() {
		h.mu.Lock()
		if !h.enabled || h.epoch != epoch || h.timers[nodeID] != t {
			h.mu.Unlock()
			return
		}
		delete(h.timers, nodeID)
		ctx := h.ctx
		h.running.Add(1)
		h.mu.Unlock()
		defer h.running.Done()
		h.logger.Warn("node missed its heartbeat; marking it down", "node_id", nodeID)
		h.expire(ctx, nodeID)
	})
	h.timers[nodeID] = t
}

// Clear stops a node's timer: it is down or gone.
func (h *Timers) Clear(nodeID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t, ok := h.timers[nodeID]; ok {
		t.Stop()
		delete(h.timers, nodeID)
	}
}

// Active counts the nodes being watched.
func (h *Timers) Active() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.timers)
}

package nomad

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/drover-io/drover/structs"
)

// heartbeatConfig is how the leader times node heartbeats.
type heartbeatConfig struct {
	minTTL       time.Duration
	maxPerSecond float64
	grace        time.Duration
	failoverTTL  time.Duration
}

// heartbeats keeps, on the leader, one timer per live node. A node that
// does not heartbeat before its timer fires is marked down.
type heartbeats struct {
	cfg    heartbeatConfig
	logger hclog.Logger

	// expire marks a node down; it runs on its own goroutine.
	expire func(ctx context.Context, nodeID string)

	mu      sync.Mutex
	enabled bool
	ctx     context.Context // the leader's, while enabled
	epoch   uint64
	timers  map[string]*time.Timer
	running sync.WaitGroup // expire calls in progress
}

func newHeartbeats(cfg heartbeatConfig, logger hclog.Logger, expire func(context.Context, string)) *heartbeats {
	return &heartbeats{cfg: cfg, logger: logger, expire: expire, timers: make(map[string]*time.Timer)}
}

// enable arms heartbeat timers from now on; expirations run with ctx, the
// leader's.
func (h *heartbeats) enable(ctx context.Context) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stopAllLocked()
	h.enabled, h.ctx = true, ctx
}

// disable stops every timer; none is armed until enable.
func (h *heartbeats) disable() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stopAllLocked()
	h.enabled, h.ctx = false, nil
}

// stopAllLocked drops every timer and starts a new epoch, so a timer that
// already fired and waits for the lock does nothing.
func (h *heartbeats) stopAllLocked() {
	for _, t := range h.timers {
		t.Stop()
	}
	h.timers = make(map[string]*time.Timer)
	h.epoch++
}

// wait waits for the expirations in progress.
func (h *heartbeats) wait() { h.running.Wait() }

// initialize gives every node that is not down, and has no timer yet, the
// failover TTL: its client may need that long to find the new leader.
func (h *heartbeats) initialize(nodes []*structs.Node) {
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
			h.armLocked(n.ID, h.cfg.failoverTTL)
		}
	}
}

// reset restarts a node's timer and returns the TTL its client should
// heartbeat within. The TTL scales with the number of nodes so that the
// leader receives at most maxPerSecond heartbeats, never below minTTL, and
// is staggered so that nodes spread out; the timer allows a grace period
// on top.
func (h *heartbeats) reset(nodeID string) time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	ttl := scaledTTL(h.cfg.minTTL, h.cfg.maxPerSecond, len(h.timers))
	ttl += time.Duration(rand.Int64N(int64(ttl)/4 + 1))
	if h.enabled {
		h.armLocked(nodeID, ttl+h.cfg.grace)
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

func (h *heartbeats) armLocked(nodeID string, after time.Duration) {
	if t, ok := h.timers[nodeID]; ok {
		t.Stop()
	}
	epoch := h.epoch
	var t *time.Timer
	t = time.AfterFunc(after, func() {
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

// clear stops a node's timer: it is down or gone.
func (h *heartbeats) clear(nodeID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t, ok := h.timers[nodeID]; ok {
		t.Stop()
		delete(h.timers, nodeID)
	}
}

// active counts the nodes being watched.
func (h *heartbeats) active() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.timers)
}

// expireNode marks a node that missed its heartbeat down, with
// evaluations that replace its allocations elsewhere.
func (s *Server) expireNode(ctx context.Context, nodeID string) {
	node, err := s.State().NodeByID(nil, nodeID)
	if err != nil || node == nil || node.Status == structs.NodeStatusDown {
		return
	}
	if _, err := s.NodeUpdateStatus(ctx, nodeID, structs.NodeStatusDown); err != nil && !errors.Is(err, ErrNotFound) {
		s.logger.Error("mark node down after missed heartbeat", "node_id", nodeID, "error", err)
	}
}

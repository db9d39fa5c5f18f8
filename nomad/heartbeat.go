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
	timers  map[string]*nodeTimer
	running sync.WaitGroup // expire calls in progress
}

// nodeTimer marks a node down at deadline.
type nodeTimer struct {
	*time.Timer
	deadline time.Time
}

func newHeartbeats(cfg heartbeatConfig, logger hclog.Logger, expire func(context.Context, string)) *heartbeats {
	return &heartbeats{cfg: cfg, logger: logger, expire: expire, timers: make(map[string]*nodeTimer)}
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
	h.timers = make(map[string]*nodeTimer)
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

// relayed restarts a node's timer for a heartbeat its client sent to
// another server age ago, which that server could not forward (see
// heartbeat_relay.go), unless the timer already runs longer. It reports
// whether it restarted the timer: not for a node that is not watched
// (down, unknown, or this server does not lead).
func (h *heartbeats) relayed(nodeID string, age time.Duration) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	t, ok := h.timers[nodeID]
	if !h.enabled || !ok {
		return false
	}
	after := scaledTTL(h.cfg.minTTL, h.cfg.maxPerSecond, len(h.timers)) + h.cfg.grace - age
	if after <= 0 || !time.Now().Add(after).After(t.deadline) {
		return false
	}
	h.armLocked(nodeID, after)
	return true
}

func (h *heartbeats) armLocked(nodeID string, after time.Duration) {
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

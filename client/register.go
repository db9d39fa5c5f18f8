package client

import (
	"context"
	"errors"
	"time"
)

// Pauses of registration and heartbeats that failed.
const (
	registerRetryMin = 100 * time.Millisecond
	registerRetryMax = 5 * time.Second
	heartbeatRetry   = time.Second
)

// registerLoop registers the node, then heartbeats at half the TTL the
// servers name, registering again whenever they no longer know the node.
func (c *Client) registerLoop(ctx context.Context) {
	ttl, ok := c.register(ctx)
	if !ok {
		return
	}
	close(c.registered)
	wait := heartbeatInterval(ttl)
	for sleepCtx(ctx, wait) {
		next, err := c.conn.Heartbeat(ctx, c.identity())
		switch {
		case err == nil:
			if next > 0 {
				ttl = next
			}
			c.heartbeatDone(ttl)
			wait = heartbeatInterval(ttl)
		case ctx.Err() != nil:
			return
		case errors.Is(err, ErrUnknownNode):
			c.logger.Warn("servers no longer know this node; registering again")
			if ttl, ok = c.register(ctx); !ok {
				return
			}
			wait = heartbeatInterval(ttl)
		default:
			c.logger.Warn("heartbeat failed", "error", err, "retry_in", heartbeatRetry)
			wait = min(heartbeatRetry, heartbeatInterval(ttl))
		}
	}
}

// register registers the node, retrying until the servers take it or ctx
// ends. It returns the heartbeat TTL.
func (c *Client) register(ctx context.Context) (time.Duration, bool) {
	retry := time.Duration(0)
	for {
		ttl, err := c.conn.RegisterNode(ctx, c.node.Copy())
		if err == nil {
			if ttl <= 0 {
				ttl = c.config.HeartbeatTTL
			}
			c.heartbeatDone(ttl)
			c.logger.Info("node registered", "node_id", c.node.ID, "heartbeat_ttl", ttl)
			return ttl, true
		}
		if ctx.Err() != nil {
			return 0, false
		}
		retry = min(max(2*retry, registerRetryMin), registerRetryMax)
		c.logger.Warn("failed to register node", "error", err, "retry_in", retry)
		if !sleepCtx(ctx, retry) {
			return 0, false
		}
	}
}

func (c *Client) heartbeatDone(ttl time.Duration) {
	c.hbMu.Lock()
	c.lastHeartbeat = time.Now()
	c.heartbeatTTL = ttl
	c.hbMu.Unlock()
}

// heartbeatInterval is how long to wait before the next heartbeat: half
// the TTL, so that one lost heartbeat does not let the node expire.
func heartbeatInterval(ttl time.Duration) time.Duration {
	return max(ttl/2, 10*time.Millisecond)
}

package client

import (
	"context"
	"path/filepath"
	"time"

	"github.com/drover-io/drover/client/cni"
	"github.com/drover-io/drover/structs"
)

// newNetworkManager returns the client's maker of network namespaces. It
// keeps its state beside the client state, or, for a client whose state is
// in memory, in the alloc dir (which is then temporary too).
func newNetworkManager(cfg *Config) (*cni.Manager, error) {
	c := cfg.CNI
	if cfg.StateDir != "" {
		c.StateDir = filepath.Join(cfg.StateDir, "cni")
	} else {
		c.StateDir = filepath.Join(cfg.AllocDir, ".cni")
	}
	return cni.New(c)
}

// networkModes are the node's networks of the modes other than host that
// this client can set up: the scheduler places a group only on a node
// that has its mode.
func (c *Client) networkModes() []*structs.NetworkResource {
	var nets []*structs.NetworkResource
	for _, mode := range c.network.Modes() {
		nets = append(nets, &structs.NetworkResource{Mode: mode})
	}
	return nets
}

// sweepTimeout bounds the teardown of each namespace no allocation owns.
const sweepTimeout = time.Minute

// sweepNetworks tears down the network namespaces of allocations no
// runner was restored for: those an earlier agent left when it died
// between making a namespace and recording the allocation, or after
// removing the allocation but before its namespace.
func (c *Client) sweepNetworks() {
	ids, err := c.network.Leftovers()
	if err != nil {
		c.logger.Error("failed to list network namespaces", "error", err)
		return
	}
	c.mu.Lock()
	var orphans []string
	for _, id := range ids {
		if _, ok := c.runners[id]; !ok {
			orphans = append(orphans, id)
		}
	}
	c.mu.Unlock()
	for _, id := range orphans {
		ctx, cancel := context.WithTimeout(context.Background(), sweepTimeout)
		err := c.network.Teardown(ctx, id)
		cancel()
		if err != nil {
			c.logger.Error("failed to tear down the network of a gone allocation", "alloc_id", id, "error", err)
			continue
		}
		c.logger.Info("tore down the network of a gone allocation", "alloc_id", id)
	}
}

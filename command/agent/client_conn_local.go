package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/drover-io/drover/client"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/structs"
)

// localServerConn is the client's way to the server of its own agent: plain
// method calls, no network.
type localServerConn struct {
	srv *nomad.Server
}

var _ client.ServerConn = (*localServerConn)(nil)

func (c *localServerConn) RegisterNode(ctx context.Context, node *structs.Node) (time.Duration, error) {
	// The agent starts its client with its server: wait for the first
	// leader here, where it is seen at once, rather than in the write's
	// forwarding loop, which looks again only every tenth of a second.
	if err := c.srv.WaitForLeader(ctx); err != nil {
		return 0, fmt.Errorf("register node: %w", err)
	}
	resp, err := c.srv.NodeRegister(ctx, node)
	if err != nil {
		return 0, fmt.Errorf("register node: %w", err)
	}
	return resp.HeartbeatTTL, nil
}

// The calls below come from the agent's own client, in this process: they
// carry the node's identity, which nothing needs to check.

func (c *localServerConn) Heartbeat(ctx context.Context, node client.NodeIdentity) (time.Duration, error) {
	ttl, err := c.srv.NodeHeartbeat(ctx, node.ID)
	if errors.Is(err, nomad.ErrNotFound) {
		return 0, fmt.Errorf("heartbeat: %w", client.ErrUnknownNode)
	}
	if err != nil {
		return 0, fmt.Errorf("heartbeat: %w", err)
	}
	return ttl, nil
}

func (c *localServerConn) NodeAllocs(ctx context.Context, node client.NodeIdentity, minIndex uint64, wait time.Duration) (map[string]uint64, uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	resp, err := c.srv.GetClientAllocs(ctx, node.ID, minIndex)
	if err != nil {
		return nil, 0, err
	}
	return resp.Allocs, resp.Index, nil
}

func (c *localServerConn) Allocs(ctx context.Context, _ client.NodeIdentity, ids []string) ([]*structs.Allocation, error) {
	resp, err := c.srv.GetAllocsByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	// The store's values are shared; the client gets its own, but for
	// the job version, which is immutable: the client and the server of
	// one agent keep one copy of it.
	out := make([]*structs.Allocation, len(resp.Allocs))
	for i, a := range resp.Allocs {
		out[i] = a.CopySkipJob()
	}
	return out, nil
}

func (c *localServerConn) UpdateAllocs(ctx context.Context, _ client.NodeIdentity, allocs []*structs.Allocation) error {
	if _, err := c.srv.UpdateAllocsFromClient(ctx, allocs); err != nil {
		return fmt.Errorf("update allocations: %w", err)
	}
	return nil
}

func (c *localServerConn) RegisterServices(ctx context.Context, node client.NodeIdentity, regs []*structs.ServiceRegistration) error {
	req := &nomad.ServiceRegistrationUpsertRequest{Services: regs, NodeID: node.ID}
	if _, err := c.srv.UpsertServiceRegistrations(ctx, req); err != nil {
		return fmt.Errorf("register services: %w", err)
	}
	return nil
}

func (c *localServerConn) DeregisterServices(ctx context.Context, node client.NodeIdentity, allocIDs []string) error {
	req := &nomad.ServiceRegistrationDeleteByAllocRequest{AllocIDs: allocIDs, NodeID: node.ID}
	if _, err := c.srv.DeleteServiceRegistrationsByAlloc(ctx, req); err != nil {
		return fmt.Errorf("deregister services: %w", err)
	}
	return nil
}

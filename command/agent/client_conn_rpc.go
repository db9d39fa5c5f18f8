package agent

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/drover-io/drover/client"
	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/structs"
)

// rpcCallTimeout bounds one RPC call other than the blocking allocation
// query, which gets its wait on top.
const rpcCallTimeout = 30 * time.Second

// rpcServerConn is the client's way to the servers over RPC. It talks to
// one server at a time and moves on to the next configured one when that
// server cannot be reached or knows no leader.
type rpcServerConn struct {
	rpc     *nomad.RPCClient
	servers []string

	mu      sync.Mutex
	current int
}

var _ client.ServerConn = (*rpcServerConn)(nil)

// newRPCServerConn returns a connection to the servers at addrs ("host" or
// "host:port"; the port defaults to 4647) that connects as cfg says.
func newRPCServerConn(addrs []string, cfg nomad.RPCClientConfig) (*rpcServerConn, error) {
	if len(addrs) == 0 {
		return nil, errors.New("client.servers is empty: a client without a server of its own needs the servers' addresses")
	}
	servers := make([]string, 0, len(addrs))
	for _, addr := range addrs {
		norm, err := normalizeRPCAddr(addr)
		if err != nil {
			return nil, fmt.Errorf("client.servers: %w", err)
		}
		servers = append(servers, norm)
	}
	return &rpcServerConn{rpc: nomad.NewRPCClient(cfg), servers: servers}, nil
}

func normalizeRPCAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		host, port = addr, strconv.Itoa(config.DefaultRPCPort)
	}
	if host == "" {
		return "", fmt.Errorf("server address %q has no host", addr)
	}
	if p, err := strconv.Atoi(port); err != nil || p <= 0 || p > 65535 {
		return "", fmt.Errorf("server address %q has an invalid port", addr)
	}
	return net.JoinHostPort(host, port), nil
}

// KnownServers lists the configured servers, for the agent's stats.
func (c *rpcServerConn) KnownServers() []string { return append([]string(nil), c.servers...) }

// Close closes the connections.
func (c *rpcServerConn) Close() { c.rpc.Close() }

// call sends method to the current server, failing over to the others in
// turn while a server cannot serve it. It gives up after one round.
func (c *rpcServerConn) call(ctx context.Context, method string, args, reply any) error {
	c.mu.Lock()
	start := c.current
	c.mu.Unlock()
	var errs []error
	for i := range c.servers {
		idx := (start + i) % len(c.servers)
		addr := c.servers[idx]
		err := c.rpc.Call(ctx, addr, method, args, reply)
		if err == nil || ctx.Err() != nil || !nomad.IsServerUnavailable(err) {
			if err == nil {
				c.mu.Lock()
				c.current = idx
				c.mu.Unlock()
			}
			return err
		}
		errs = append(errs, fmt.Errorf("%s: %w", addr, err))
	}
	// Start the next round with the server after the one tried first.
	c.mu.Lock()
	c.current = (start + 1) % len(c.servers)
	c.mu.Unlock()
	return fmt.Errorf("%s: no server could serve the request: %w", method, errors.Join(errs...))
}

func (c *rpcServerConn) RegisterNode(ctx context.Context, node *structs.Node) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, rpcCallTimeout)
	defer cancel()
	var resp nomad.NodeUpdateResponse
	if err := c.call(ctx, "Client.Register", &nomad.NodeRegisterRequest{Node: node}, &resp); err != nil {
		return 0, err
	}
	return resp.HeartbeatTTL, nil
}

func (c *rpcServerConn) Heartbeat(ctx context.Context, node client.NodeIdentity) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, rpcCallTimeout)
	defer cancel()
	var resp nomad.NodeHeartbeatResponse
	err := c.call(ctx, "Client.Heartbeat", &nomad.NodeHeartbeatRequest{NodeID: node.ID, SecretID: node.SecretID}, &resp)
	if errors.Is(err, nomad.ErrNotFound) {
		return 0, fmt.Errorf("heartbeat: %w", client.ErrUnknownNode)
	}
	return resp.HeartbeatTTL, err
}

func (c *rpcServerConn) NodeAllocs(ctx context.Context, node client.NodeIdentity, minIndex uint64, wait time.Duration) (map[string]uint64, uint64, error) {
	// The server ends the query after wait; the call's own bound leaves it
	// time to answer.
	ctx, cancel := context.WithTimeout(ctx, wait+rpcCallTimeout)
	defer cancel()
	var resp nomad.ClientAllocsResponse
	req := &nomad.ClientAllocsRequest{NodeID: node.ID, SecretID: node.SecretID, MinIndex: minIndex, MaxWait: wait}
	if err := c.call(ctx, "Client.GetClientAllocs", req, &resp); err != nil {
		return nil, 0, err
	}
	return resp.Allocs, resp.Index, nil
}

func (c *rpcServerConn) Allocs(ctx context.Context, node client.NodeIdentity, ids []string) ([]*structs.Allocation, error) {
	ctx, cancel := context.WithTimeout(ctx, rpcCallTimeout)
	defer cancel()
	var resp nomad.AllocsGetResponse
	req := &nomad.AllocsGetRequest{AllocIDs: ids, NodeID: node.ID, SecretID: node.SecretID, SharedJobs: true}
	if err := c.call(ctx, "Client.GetAllocs", req, &resp); err != nil {
		return nil, err
	}
	if err := resp.AttachJobs(); err != nil {
		return nil, err
	}
	return resp.Allocs, nil
}

func (c *rpcServerConn) UpdateAllocs(ctx context.Context, node client.NodeIdentity, allocs []*structs.Allocation) error {
	ctx, cancel := context.WithTimeout(ctx, rpcCallTimeout)
	defer cancel()
	var resp nomad.IndexResponse
	req := &nomad.AllocClientUpdateRequest{Allocs: allocs, NodeID: node.ID, SecretID: node.SecretID}
	return c.call(ctx, "Client.UpdateAllocs", req, &resp)
}

func (c *rpcServerConn) RegisterServices(ctx context.Context, node client.NodeIdentity, regs []*structs.ServiceRegistration) error {
	ctx, cancel := context.WithTimeout(ctx, rpcCallTimeout)
	defer cancel()
	var resp nomad.IndexResponse
	req := &nomad.ServiceRegistrationUpsertRequest{Services: regs, NodeID: node.ID, SecretID: node.SecretID}
	return c.call(ctx, "Client.RegisterServices", req, &resp)
}

func (c *rpcServerConn) DeregisterServices(ctx context.Context, node client.NodeIdentity, allocIDs []string) error {
	ctx, cancel := context.WithTimeout(ctx, rpcCallTimeout)
	defer cancel()
	var resp nomad.IndexResponse
	req := &nomad.ServiceRegistrationDeleteByAllocRequest{AllocIDs: allocIDs, NodeID: node.ID, SecretID: node.SecretID}
	return c.call(ctx, "Client.DeregisterServices", req, &resp)
}

package agent

import (
	"context"

	"github.com/drover-io/drover/client"
	"github.com/drover-io/drover/structs"
)

var (
	_ client.ServiceReadConn = (*localServerConn)(nil)
	_ client.ServiceReadConn = (*rpcServerConn)(nil)
)

// ReadServices reads service registrations from the agent's own server,
// as the holder of req.AuthToken (a task's workload identity).
func (c *localServerConn) ReadServices(ctx context.Context, req *structs.ServicesReadRequest) (*structs.ServicesReadResponse, error) {
	ctx, err := c.srv.WithCallerOf(ctx, req.AuthToken)
	if err != nil {
		return nil, err
	}
	return c.srv.ReadServices(ctx, req)
}

// ReadServices reads service registrations over RPC, as the holder of
// req.AuthToken; a blocking read is bounded by its own wait.
func (c *rpcServerConn) ReadServices(ctx context.Context, req *structs.ServicesReadRequest) (*structs.ServicesReadResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, rpcCallTimeout+req.MaxQueryTime)
	defer cancel()
	var resp structs.ServicesReadResponse
	if err := c.call(ctx, "Service.Read", req, &resp); err != nil {
		return nil, err
	}
	return &resp, nil
}

package agent

import (
	"context"

	"github.com/drover-io/drover/client"
	"github.com/drover-io/drover/structs"
)

var (
	_ client.VariableServerConn = (*localServerConn)(nil)
	_ client.VariableServerConn = (*rpcServerConn)(nil)
)

// ReadVariable reads a variable from the agent's own server, as the
// holder of req.AuthToken (a task's workload identity).
func (c *localServerConn) ReadVariable(ctx context.Context, req *structs.VariablesReadRequest) (*structs.VariablesReadResponse, error) {
	ctx, err := c.srv.WithCallerOf(ctx, req.AuthToken)
	if err != nil {
		return nil, err
	}
	return c.srv.ReadVariable(ctx, req)
}

// ListVariables lists variables from the agent's own server, as the
// holder of req.AuthToken.
func (c *localServerConn) ListVariables(ctx context.Context, req *structs.VariablesListRequest) (*structs.VariablesListResponse, error) {
	ctx, err := c.srv.WithCallerOf(ctx, req.AuthToken)
	if err != nil {
		return nil, err
	}
	return c.srv.ListVariables(ctx, req)
}

// ReadVariable reads a variable over RPC, as the holder of
// req.AuthToken; a blocking read is bounded by its own wait.
func (c *rpcServerConn) ReadVariable(ctx context.Context, req *structs.VariablesReadRequest) (*structs.VariablesReadResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, rpcCallTimeout+req.MaxQueryTime)
	defer cancel()
	var resp structs.VariablesReadResponse
	if err := c.call(ctx, "Variables.Read", req, &resp); err != nil {
		return nil, err
	}
	return &resp, nil
}

// ListVariables lists variables over RPC, as the holder of
// req.AuthToken.
func (c *rpcServerConn) ListVariables(ctx context.Context, req *structs.VariablesListRequest) (*structs.VariablesListResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, rpcCallTimeout+req.MaxQueryTime)
	defer cancel()
	var resp structs.VariablesListResponse
	if err := c.call(ctx, "Variables.List", req, &resp); err != nil {
		return nil, err
	}
	return &resp, nil
}

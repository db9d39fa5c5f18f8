package agent

import (
	"context"
	"fmt"

	"github.com/drover-io/drover/client"
	"github.com/drover-io/drover/nomad"
)

var (
	_ client.IdentityServerConn = (*localServerConn)(nil)
	_ client.IdentityServerConn = (*rpcServerConn)(nil)
)

// SignIdentity asks the agent's own server for the workload identity of a
// task of the node's allocation.
func (c *localServerConn) SignIdentity(ctx context.Context, node client.NodeIdentity, allocID, task string) (string, error) {
	resp, err := c.srv.SignIdentities(ctx, &nomad.IdentitySignRequest{NodeID: node.ID, SecretID: node.SecretID, AllocID: allocID, Tasks: []string{task}})
	return signedToken(resp, task, err)
}

// SignIdentity asks the servers, over RPC and as the node, for the
// workload identity of a task of the node's allocation.
func (c *rpcServerConn) SignIdentity(ctx context.Context, node client.NodeIdentity, allocID, task string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, rpcCallTimeout)
	defer cancel()
	var resp nomad.IdentitySignResponse
	err := c.call(ctx, "Client.SignIdentities", &nomad.IdentitySignRequest{NodeID: node.ID, SecretID: node.SecretID, AllocID: allocID, Tasks: []string{task}}, &resp)
	return signedToken(&resp, task, err)
}

func signedToken(resp *nomad.IdentitySignResponse, task string, err error) (string, error) {
	if err != nil {
		return "", fmt.Errorf("sign the identity of task %q: %w", task, err)
	}
	for _, id := range resp.Identities {
		if id.Task == task {
			return id.JWT, nil
		}
	}
	return "", fmt.Errorf("sign the identity of task %q: the servers answered no token for it", task)
}

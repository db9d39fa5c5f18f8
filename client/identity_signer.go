package client

import (
	"context"
	"fmt"
)

// IdentityServerConn is a ServerConn that can also ask the servers to
// sign the workload identity of a task of one of the node's allocations.
// The agent's connections implement it.
type IdentityServerConn interface {
	SignIdentity(ctx context.Context, node NodeIdentity, allocID, task string) (string, error)
}

// identitySigner signs the identities of the client's tasks, as the node.
type identitySigner struct{ c *Client }

func (s identitySigner) SignIdentity(ctx context.Context, allocID, task string) (string, error) {
	conn, ok := s.c.conn.(IdentityServerConn)
	if !ok {
		return "", fmt.Errorf("this client's connection to the servers (%T) cannot ask for workload identities", s.c.conn)
	}
	return conn.SignIdentity(ctx, s.c.identity(), allocID, task)
}

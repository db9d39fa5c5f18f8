package client

import (
	"context"
	"errors"
	"time"

	"github.com/drover-io/drover/structs"
)

// ErrUnknownNode is what a ServerConn's Heartbeat returns, wrapped, when
// the servers do not know the node (they lost it, or it was purged): the
// client registers again.
var ErrUnknownNode = errors.New("node unknown to the servers")

// NodeIdentity is who the node is to the servers: its ID and the secret
// that proves it, which the node registered with.
type NodeIdentity struct {
	ID       string
	SecretID string
}

// ServerConn is the client's way to the servers: in the agent's own process
// when it runs a server too, over RPC otherwise. Implementations are safe
// for concurrent use.
type ServerConn interface {
	// RegisterNode registers the node, or refreshes its registration, and
	// returns the heartbeat TTL the servers expect (0: not told).
	RegisterNode(ctx context.Context, node *structs.Node) (ttl time.Duration, err error)

	// Heartbeat tells the servers the node is alive and returns the next
	// TTL (0: not told). It fails with ErrUnknownNode when they do not
	// know the node.
	Heartbeat(ctx context.Context, node NodeIdentity) (ttl time.Duration, err error)

	// NodeAllocs returns the AllocModifyIndex of each allocation placed on
	// the node, once the servers' allocation index is above minIndex or
	// wait has elapsed, with the index the answer reflects.
	NodeAllocs(ctx context.Context, node NodeIdentity, minIndex uint64, wait time.Duration) (allocs map[string]uint64, index uint64, err error)

	// Allocs returns the node's allocations with the given IDs, each with
	// its job; IDs the servers no longer store are left out. The client
	// owns what is returned but the jobs: a job version is shared by the
	// allocations that run it, and never modified.
	Allocs(ctx context.Context, node NodeIdentity, ids []string) ([]*structs.Allocation, error)

	// UpdateAllocs reports the client state of the node's allocations.
	UpdateAllocs(ctx context.Context, node NodeIdentity, allocs []*structs.Allocation) error

	// ServiceRegistrar registers the services of the node's allocations.
	ServiceRegistrar
}

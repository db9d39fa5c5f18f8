package nomad

import (
	"context"
	"errors"
	"net/rpc"
	"time"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/structs"
)

// RPCClient calls the servers' RPC endpoints from outside the cluster, as
// a client agent does. It keeps one connection per server address and is
// safe for concurrent use; concurrent calls share a connection.
type RPCClient struct {
	pool *nomadrpc.Pool
}

// RPCClientConfig says how an RPCClient connects.
type RPCClientConfig struct {
	// DialTimeout bounds setting up a connection, the handshake included
	// (5s when zero).
	DialTimeout time.Duration

	// RegistrationSecret, when set, is proved on every connection (see
	// RegistrationSecret): the servers then let this client register new
	// nodes, and this client checks that the servers hold it too.
	// Without it the client can heartbeat and report for nodes the
	// servers know, with their secret IDs, and register nothing new.
	RegistrationSecret []byte

	// TLS, when set, runs every connection over mutual TLS with the
	// servers of Region (the agent's tls.rpc); the client's certificate
	// then proves what RegistrationSecret proves without TLS.
	TLS    *nomadrpc.TLS
	Region string
}

// NewRPCClient returns a client that connects as cfg says.
func NewRPCClient(cfg RPCClientConfig) *RPCClient {
	timeout := cfg.DialTimeout
	if timeout <= 0 {
		timeout = DefaultConfig().RPCDialTimeout
	}
	creds := nomadrpc.Credentials{Role: nomadrpc.RoleAnonymous}
	if len(cfg.RegistrationSecret) > 0 {
		creds = nomadrpc.Credentials{Role: nomadrpc.RoleClient, Secret: append([]byte(nil), cfg.RegistrationSecret...)}
	}
	dialer := nomadrpc.NewDialer(creds, nomadrpc.NewInstanceID())
	if cfg.TLS != nil {
		region := cfg.Region
		if region == "" {
			region = structs.DefaultRegion
		}
		dialer.TLS = cfg.TLS.DialConfig(region)
	}
	return &RPCClient{pool: nomadrpc.NewPool(timeout, dialer)}
}

// Call invokes method ("Node.Register", ...) on the server at addr
// ("host:port") and waits for its answer or for ctx to end. An error the
// endpoint returned is a *RemoteError that matches the sentinels of this
// package (ErrNotFound, ErrNoLeader, ...) with errors.Is.
func (c *RPCClient) Call(ctx context.Context, addr, method string, args, reply any) error {
	return c.pool.Call(ctx, addr, method, args, reply)
}

// Close closes every connection; later calls fail.
func (c *RPCClient) Close() { c.pool.Close() }

// IsServerUnavailable reports whether err means that the server called
// could not serve the request at all: it could not be reached, the
// connection broke, the call timed out, or the server knows no leader or
// cannot reach it. A caller with other servers to try should move on to
// the next one.
func IsServerUnavailable(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrNoLeader) || errors.Is(err, ErrLeaderUnreachable) || errors.Is(err, nomadrpc.ErrPoolClosed) {
		return true
	}
	var remote *nomadrpc.RemoteError
	return !errors.As(err, &remote) || errors.Is(err, rpc.ErrShutdown)
}

package nomad

import (
	"context"
	"time"

	"github.com/drover-io/drover/nomad/auth"
	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/structs"
)

// variablesRPC is the Variables endpoint of servers: the reads, and
// Apply, the writes other servers forward. Every call carries its
// caller's secret, which the server resolves here; each method then
// checks what it needs once, through authorize.
type variablesRPC struct{ variablesReadRPC }

// variablesReadRPC is the Variables endpoint of client agents: Read and
// List, which a client calls with a task's workload identity to render
// its templates.
type variablesReadRPC struct{ srv *Server }

// variablesReadSlack is how long a blocking read over RPC may run past
// its wait: the time to answer.
const variablesReadSlack = 10 * time.Second

// serveUserRead serves a read over RPC on behalf of the holder of
// secret. Unlike a write, a blocking read outlives the forward timeout:
// it is bounded by its own wait.
func (s *Server) serveUserRead(secret string, q structs.QueryOptions, fn func(ctx context.Context) error) error {
	timeout := s.config.ForwardTimeout
	if q.MinQueryIndex > 0 {
		timeout = queryWait(q.MaxQueryTime) + variablesReadSlack
	}
	ctx, cancel := context.WithTimeout(s.shutdownCtx, timeout)
	defer cancel()
	a, _, err := s.ResolveToken(ctx, secret)
	if err != nil {
		return nomadrpc.EncodeError(err)
	}
	return nomadrpc.EncodeError(fn(auth.WithCaller(ctx, a)))
}

// variablesQuery is the server's read options of an RPC read.
func variablesQuery(namespace string, q structs.QueryOptions) QueryOptions {
	return QueryOptions{
		Namespace:  namespace,
		MinIndex:   q.MinQueryIndex,
		MaxWait:    q.MaxQueryTime,
		AllowStale: q.AllowStale,
	}
}

// queryMeta is the RPC form of a read's QueryMeta.
func queryMeta(m QueryMeta) structs.QueryMeta {
	return structs.QueryMeta{Index: m.Index, KnownLeader: m.KnownLeader, LastContact: m.LastContact}
}

// defaultNamespace is namespace, or the default one when it is empty.
func defaultNamespace(namespace string) string {
	if namespace == "" {
		return structs.DefaultNamespace
	}
	return namespace
}

// WithCallerOf returns ctx carrying the identity of the holder of secret,
// an ACL token's secret or a task's workload identity, as an RPC call of
// the Variables endpoint resolves it: what a caller in the same process,
// such as the template renderer of a client agent that also runs a
// server, hands ReadVariable and ListVariables.
func (s *Server) WithCallerOf(ctx context.Context, secret string) (context.Context, error) {
	a, _, err := s.ResolveToken(ctx, secret)
	if err != nil {
		return nil, err
	}
	return auth.WithCaller(ctx, a), nil
}

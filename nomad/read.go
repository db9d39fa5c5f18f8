package nomad

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// Reads. Every read of the server's state by a caller (the HTTP API, a
// client over RPC) goes through read: it owns what Nomad's blocking queries
// mean (the minimum index, the bounded wait, the watch sets, the store
// swapped by a snapshot restore), which tables' index a result is reported
// at, and whether this server may answer at all. The read methods
// (read_jobs.go, read_allocs.go, read_evals.go, read_nodes.go) only say what
// to read.
//
// A read that is not stale first catches up with the cluster, so that it
// sees every write answered before it, whichever server answered it
// (read_index.go); AllowStale is the fast path from local state.
//
// Lists are filtered there too: each list read passes its items through
// visible, which keeps those in the namespaces the caller's ACL may read.

// Bounds of a blocking read: one with a minimum index and no wait waits
// DefaultQueryWait; none waits longer than MaxQueryWait.
const (
	DefaultQueryWait = 5 * time.Minute
	MaxQueryWait     = 10 * time.Minute
)

// AllNamespaces, as QueryOptions.Namespace of a list read, selects every
// namespace.
const AllNamespaces = state.AllNamespaces

// QueryOptions are what every read takes.
type QueryOptions struct {
	// Namespace is the namespace read; AllNamespaces selects every one in
	// list reads.
	Namespace string
	// Prefix keeps, in list reads, the objects whose ID starts with it.
	Prefix string
	// MinIndex makes the read block until the index of its result is
	// above it; 0 never blocks.
	MinIndex uint64
	// MaxWait bounds a blocking read: DefaultQueryWait when zero, at most
	// MaxQueryWait. A little jitter is added, so that many callers waiting
	// alike do not all return at once.
	MaxWait time.Duration
	// AllowStale lets a server answer from its own state at once, also
	// when it knows no leader. Without it a read first catches up with
	// the leader's state (read_index.go), and a server that knows no
	// leader answers ErrNoLeader.
	AllowStale bool

	// ACL is what the caller may do: list reads keep only the items it
	// may see. A nil ACL sees nothing; with ACLs disabled the HTTP layer
	// passes acl.Management().
	ACL *acl.ACL
	// Token is the caller's token, nil for the anonymous caller and when
	// ACLs are disabled: ACL reads show a token its own policies.
	Token *structs.ACLToken
}

// QueryMeta is what a read says about its result.
type QueryMeta struct {
	// Index is the raft index the result reflects.
	Index uint64
	// KnownLeader tells whether the answering server knew a leader and
	// had caught up with its state since it started.
	KnownLeader bool
	// LastContact is how long ago the answering server heard from the
	// leader: 0 on the leader.
	LastContact time.Duration
}

// readFn reads one result from a point-in-time view of the store, adding
// what it read to ws, and returns it with the index it reflects.
type readFn[T any] func(ws memdb.WatchSet, st *state.StateStore) (T, uint64, error)

// read runs fn under q's blocking-query semantics: at once when q.MinIndex
// is 0, else again after each write to what fn watched until its index is
// above q.MinIndex or q's wait (or ctx) ends, when the latest result is
// returned without error.
func read[T any](s *Server, ctx context.Context, q QueryOptions, fn readFn[T]) (T, QueryMeta, error) {
	var zero T
	if !q.AllowStale {
		if !s.KnownLeader() {
			return zero, QueryMeta{}, ErrNoLeader
		}
		if err := s.catchUpForRead(ctx); err != nil {
			return zero, QueryMeta{}, err
		}
	}
	if q.MinIndex > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, withJitter(queryWait(q.MaxWait)))
		defer cancel()
	}
	resp, index, err := s.blockingRead(ctx, q.MinIndex, func(ws memdb.WatchSet, st *state.StateStore) (any, uint64, error) {
		return fn(ws, st)
	})
	if err != nil {
		return zero, QueryMeta{}, err
	}
	return resp.(T), s.QueryMetaAt(index), nil
}

// blockingRead runs a blocking query on the current state store, starting
// over on the new store when a snapshot restore replaces it.
func (s *Server) blockingRead(ctx context.Context, minIndex uint64, query state.QueryFn) (any, uint64, error) {
	for {
		resp, index, err := s.State().BlockingQuery(ctx, minIndex, query)
		if errors.Is(err, state.ErrAbandoned) {
			continue
		}
		return resp, index, err
	}
}

// LatestQueryMeta is the QueryMeta of a read of everything this server
// holds now, for answers that are about the server rather than one read
// (status, agent information).
func (s *Server) LatestQueryMeta() (QueryMeta, error) {
	index, err := s.State().LatestIndex()
	if err != nil {
		return QueryMeta{}, err
	}
	return s.QueryMetaAt(index), nil
}

// QueryMetaAt is the QueryMeta of an answer that reflects the state at
// index, such as a snapshot of it.
func (s *Server) QueryMetaAt(index uint64) QueryMeta {
	known := s.KnownLeader() && s.caughtUp.Load()
	return QueryMeta{Index: index, KnownLeader: known, LastContact: s.LastContact()}
}

// queryWait bounds the wait a caller asked for.
func queryWait(asked time.Duration) time.Duration {
	if asked <= 0 {
		return DefaultQueryWait
	}
	return min(asked, MaxQueryWait)
}

// withJitter adds a random extra wait of up to 1/16 of wait.
func withJitter(wait time.Duration) time.Duration {
	if wait < 16 {
		return wait
	}
	return wait + rand.N(wait/16)
}

// visible keeps the items the caller may see: those in a namespace where
// q.ACL grants capability. namespace says which namespace an item is in.
// Every list of namespaced objects passes through it, so that a list
// across namespaces shows only what its caller may read.
func visible[T any](q QueryOptions, items []T, namespace func(T) string, capability string) []T {
	out := make([]T, 0, len(items))
	for _, item := range items {
		if q.ACL.AllowNamespaceOperation(namespace(item), capability) {
			out = append(out, item)
		}
	}
	return out
}

// tablesIndex is the highest index of the named tables: the index of a
// result built from all of them.
func tablesIndex(st *state.StateStore, tables ...string) (uint64, error) {
	var highest uint64
	for _, table := range tables {
		index, err := st.Index(table)
		if err != nil {
			return 0, err
		}
		highest = max(highest, index)
	}
	return highest, nil
}

// resultAt is what a read answers that is built from whole tables (a list,
// counts): its result at the highest index of those tables.
func resultAt[T any](st *state.StateStore, result T, err error, tables ...string) (T, uint64, error) {
	if err != nil {
		var zero T
		return zero, 0, err
	}
	index, err := tablesIndex(st, tables...)
	return result, index, err
}

// objectAt is what a read of one object answers: the object at its
// modifyIndex, or, when there is none, nil at the index of table, so that
// a caller can block until it appears.
func objectAt[T any](st *state.StateStore, obj *T, err error, modifyIndex func(*T) uint64, table string) (*T, uint64, error) {
	if err != nil {
		return nil, 0, err
	}
	if obj != nil {
		return obj, modifyIndex(obj), nil
	}
	index, err := st.Index(table)
	return nil, index, err
}

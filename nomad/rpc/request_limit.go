package rpc

import (
	"context"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"
)

// What a connection may make a server decode depends on what its peer
// proved. net/rpc's JSON codec decodes each request whole, so each is
// bounded, and so is what all connections of one role make the server
// hold at once: 12 anonymous connections sending 64 MiB each once took a
// fresh server from 21 MiB to 1.8 GiB.
//
// Before a handshake is done nothing but the handshake is read: its
// messages are of fixed size (at most 81 bytes; see handshake.go), and a
// TLS handshake's records are bounded by crypto/tls. Raft connections,
// which only servers open, are read by raft's transport, which streams
// snapshots instead of holding them whole.
const (
	// MaxAnonymousRequestBytes bounds one request of a peer that proved
	// nothing: a node's registration is a few KiB, a heartbeat or a read
	// of its allocations a few hundred bytes, and a client sends its
	// allocations' updates in requests of at most maxUpdateBatchBytes.
	MaxAnonymousRequestBytes = 256 << 10
	// MaxClientRequestBytes bounds one request of a client agent that
	// proved the registration secret: the same calls, with room for a
	// node of unusual size.
	MaxClientRequestBytes = 8 << 20
	// maxServerRequestBytes bounds one request of a server: forwarded
	// writes carry a job (at most limits.job_max_size, 4 MiB by default,
	// as JSON) or a plan's results.
	maxServerRequestBytes = 64 << 20

	// The budgets bound the bytes of requests that all connections of one
	// role have sent a server and whose calls have not answered yet: what
	// is being read, decoded and served. Each is a few times the largest
	// request of the role. A connection that would go beyond waits for
	// room, at most budgetWait, and is then closed.
	anonymousDecodeBudget = 4 << 20
	clientDecodeBudget    = 32 << 20
	serverDecodeBudget    = 128 << 20
	budgetWait            = 2 * time.Second

	// requestReadTimeout bounds how long a peer that is not a server may
	// take to send one request, from its first byte: a peer that starts
	// requests and stalls holds budget only this long.
	requestReadTimeout = 30 * time.Second

	// readChunk bounds one read of a request: budget is taken for what a
	// read may return before it is made.
	readChunk = 64 << 10
)

// requestBounds are what the connections of one role may send.
type requestBounds struct {
	// maxRequest bounds one request, in bytes.
	maxRequest int64
	// budget is shared by every connection of the role.
	budget *semaphore.Weighted
	// budgetSize is the budget's size, for errors.
	budgetSize int64
	// readTimeout bounds the sending of one request; zero is none.
	readTimeout time.Duration
}

// roleBounds are the request bounds of each role on one server.
type roleBounds map[ConnRole]requestBounds

// defaultRoleBounds are the bounds of a server's RPC port.
func defaultRoleBounds() roleBounds {
	return roleBounds{
		RoleAnonymous: newRequestBounds(MaxAnonymousRequestBytes, anonymousDecodeBudget, requestReadTimeout),
		RoleClient:    newRequestBounds(MaxClientRequestBytes, clientDecodeBudget, requestReadTimeout),
		RoleServer:    newRequestBounds(maxServerRequestBytes, serverDecodeBudget, 0),
	}
}

func newRequestBounds(maxRequest, budget int64, readTimeout time.Duration) requestBounds {
	return requestBounds{
		maxRequest:  maxRequest,
		budget:      semaphore.NewWeighted(budget),
		budgetSize:  budget,
		readTimeout: readTimeout,
	}
}

// limitRequests holds what a peer of role sends on conn to bounds: each
// JSON value it sends to bounds.maxRequest bytes (a read that would take
// the current one past it fails, and net/rpc then closes the connection;
// values are told apart as the bytes are read, so the cap holds per
// request whatever the peer pipelines), and the bytes read to the role's
// budget, until released. ctx ends a wait for budget.
func limitRequests(ctx context.Context, conn net.Conn, role ConnRole, bounds requestBounds) *requestLimitConn {
	return &requestLimitConn{Conn: conn, role: role, bounds: bounds, ctx: ctx}
}

type requestLimitConn struct {
	net.Conn
	role   ConnRole
	bounds requestBounds
	ctx    context.Context
	scan   jsonValueScanner
	// held counts the budget this connection holds; completed, of that,
	// the bytes of values that ended and that no call has claimed yet.
	held      atomic.Int64
	completed int64
	// deadline is set while a request is being read under a timeout.
	deadline bool
}

func (c *requestLimitConn) Read(p []byte) (int, error) {
	if c.scan.Current >= c.bounds.maxRequest {
		return 0, fmt.Errorf("an RPC request of a %s peer larger than %d bytes", c.role, c.bounds.maxRequest)
	}
	// Never read past the cap of the value under way, nor more than a
	// chunk for which budget is taken.
	if left := min(c.bounds.maxRequest-c.scan.Current, readChunk); int64(len(p)) > left {
		p = p[:left]
	}
	if err := c.take(int64(len(p))); err != nil {
		return 0, err
	}
	n, err := c.Conn.Read(p)
	c.give(int64(len(p) - n))
	c.completed += c.scan.Feed(p[:n])
	c.watchTimeout()
	return n, err
}

// take waits for n bytes of the role's budget.
func (c *requestLimitConn) take(n int64) error {
	if !c.bounds.budget.TryAcquire(n) {
		ctx, cancel := context.WithTimeout(c.ctx, budgetWait)
		defer cancel()
		if err := c.bounds.budget.Acquire(ctx, n); err != nil {
			return fmt.Errorf("the server is serving %d bytes of requests from %s peers, as many as it holds at once, and this connection waited %s for room: %w",
				c.bounds.budgetSize, c.role, budgetWait, err)
		}
	}
	c.held.Add(n)
	return nil
}

// give returns n bytes of budget.
func (c *requestLimitConn) give(n int64) {
	if n > 0 {
		c.held.Add(-n)
		c.bounds.budget.Release(n)
	}
}

// watchTimeout bounds the reading of the request under way, for roles
// that have a timeout: a deadline is set when a request starts and lifted
// when no request is under way.
func (c *requestLimitConn) watchTimeout() {
	if c.bounds.readTimeout == 0 {
		return
	}
	switch {
	case c.scan.Current > 0 && !c.deadline:
		c.deadline = true
		_ = c.Conn.SetReadDeadline(time.Now().Add(c.bounds.readTimeout))
	case c.scan.Current == 0 && c.deadline:
		c.deadline = false
		_ = c.Conn.SetReadDeadline(time.Time{})
	}
}

// claimCompleted returns the bytes of the values that ended since the
// last claim: the request just decoded, and those that a read brought in
// with it whole (at most a chunk). Their budget is held until the call
// that claimed them answers.
func (c *requestLimitConn) claimCompleted() int64 {
	n := c.completed
	c.completed = 0
	return n
}

// Close closes the connection and returns the budget it holds. net/rpc
// closes its codec, and so this, once every call has answered.
func (c *requestLimitConn) Close() error {
	c.give(c.held.Swap(0))
	return c.Conn.Close()
}

// jsonValueScanner follows a stream of JSON values byte by byte, enough
// to know where each top-level object or array ends, and counts the bytes
// of the one under way. Whitespace between values counts for none.
type jsonValueScanner struct {
	Current          int64 // bytes of the value under way
	depth            int
	InString, escape bool
}

// Feed follows p and returns the bytes of p and of earlier feeds that
// belong to values that ended in p.
func (s *jsonValueScanner) Feed(p []byte) int64 {
	var ended int64
	for _, c := range p {
		if s.depth == 0 && !s.InString && isJSONSpace(c) {
			continue
		}
		s.Current++
		switch {
		case s.InString:
			switch {
			case s.escape:
				s.escape = false
			case c == '\\':
				s.escape = true
			case c == '"':
				s.InString = false
			}
		case c == '"':
			s.InString = true
		case c == '{' || c == '[':
			s.depth++
		case c == '}' || c == ']':
			if s.depth > 0 {
				s.depth--
			}
			if s.depth == 0 {
				ended += s.Current // a request is complete
				s.Current = 0
			}
		}
	}
	return ended
}

func isJSONSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

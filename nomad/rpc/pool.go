package rpc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/rpc"
	"reflect"
	"sync"
	"time"
)

// ErrPoolClosed is returned by calls made after the pool was closed.
var ErrPoolClosed = errors.New("rpc connection pool closed")

// Pool keeps one RPC client per server address. A net/rpc client
// multiplexes concurrent calls over its connection, so one is enough.
type Pool struct {
	dialTimeout time.Duration
	Dialer      *Dialer

	mu      sync.Mutex
	clients map[string]*PooledClient
	closed  bool
}

// PooledClient is an RPC client and the connection under it.
type PooledClient struct {
	*rpc.Client
	Conn net.Conn
	// sendMu serializes send's writes (pool_send.go).
	sendMu sync.Mutex
}

func NewPool(dialTimeout time.Duration, dialer *Dialer) *Pool {
	return &Pool{
		dialTimeout: dialTimeout,
		Dialer:      dialer,
		clients:     make(map[string]*PooledClient),
	}
}

// Call invokes method on the server at addr. Errors the remote endpoint
// returned come back decoded (see DecodeError); a call whose connection
// turns out to be dead is retried once on a new connection.
func (p *Pool) Call(ctx context.Context, addr, method string, args, reply any) error {
	err := p.callOnce(ctx, addr, method, args, reply)
	if errors.Is(err, rpc.ErrShutdown) {
		// The pooled connection had died (the peer restarted, say).
		err = p.callOnce(ctx, addr, method, args, reply)
	}
	return err
}

func (p *Pool) callOnce(ctx context.Context, addr, method string, args, reply any) error {
	client, err := p.Client(ctx, addr)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		// The caller gave up while the connection was dialled: a call
		// sent now would run with nobody waiting for its answer.
		return &DialError{Addr: addr, Err: err}
	}
	// The reply is decoded into a value of our own and copied into reply
	// on success: an answer that arrives after the caller gave up must not
	// write into what the caller holds.
	replyType := reflect.TypeOf(reply)
	if replyType == nil || replyType.Kind() != reflect.Pointer {
		return fmt.Errorf("rpc %s: reply must be a pointer, got %T", method, reply)
	}
	own := reflect.New(replyType.Elem())
	call := client.Send(ctx, method, args, own.Interface())
	select {
	case <-call.Done:
	case <-ctx.Done():
		// Other calls share the connection; leave it to them.
		return fmt.Errorf("rpc %s to %s: %w", method, addr, ctx.Err())
	}
	if call.Error == nil {
		reflect.ValueOf(reply).Elem().Set(own.Elem())
		return nil
	}
	var se rpc.ServerError
	if errors.As(call.Error, &se) {
		return DecodeError(call.Error)
	}
	p.Discard(addr, client)
	if errors.Is(call.Error, rpc.ErrShutdown) {
		return call.Error
	}
	return fmt.Errorf("rpc %s to %s: %w", method, addr, call.Error)
}

// Client returns the pooled client for addr, dialing one if needed.
func (p *Pool) Client(ctx context.Context, addr string) (*PooledClient, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrPoolClosed
	}
	c, ok := p.clients[addr]
	p.mu.Unlock()
	if ok {
		if !peerClosed(c.Conn) {
			return c, nil
		}
		// The server closed the connection since its last use (it
		// restarted, say): dial afresh rather than send into it.
		p.Discard(addr, c)
	}

	timeout := p.dialTimeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = min(timeout, time.Until(dl))
	}
	if timeout <= 0 {
		return nil, &DialError{Addr: addr, Err: context.DeadlineExceeded}
	}
	conn, err := p.Dialer.Dial(addr, ConnTypeRPC, timeout)
	if err != nil {
		return nil, &DialError{Addr: addr, Err: err}
	}
	c = &PooledClient{Client: NewClient(conn), Conn: conn}

	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		c.Close()
		return nil, ErrPoolClosed
	}
	if existing, ok := p.clients[addr]; ok {
		// Another caller dialed at the same time; keep theirs.
		c.Close()
		return existing, nil
	}
	p.clients[addr] = c
	return c, nil
}

// Discard drops client from the pool if it is still the one for addr and
// closes it.
func (p *Pool) Discard(addr string, client *PooledClient) {
	p.mu.Lock()
	if p.clients[addr] == client {
		delete(p.clients, addr)
	}
	p.mu.Unlock()
	client.Close()
}

// Close closes every pooled connection; later calls fail.
func (p *Pool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for addr, c := range p.clients {
		c.Close()
		delete(p.clients, addr)
	}
}

// DialError is a failure to connect, or a caller that gave up before the
// connection was made: the call was never sent.
type DialError struct {
	Addr string
	Err  error
}

func (e *DialError) Error() string { return fmt.Sprintf("dial %s: %v", e.Addr, e.Err) }

func (e *DialError) Unwrap() error { return e.Err }

// Replace makes conn, already proven, the pooled connection to addr and
// closes the one it replaces: a test taps a server's traffic this way.
func (p *Pool) Replace(addr string, conn net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if old, ok := p.clients[addr]; ok {
		old.Close()
	}
	p.clients[addr] = &PooledClient{Client: NewClient(conn), Conn: conn}
}

// Forget closes the pooled connection to addr, if any: the next call
// dials anew.
func (p *Pool) Forget(addr string) {
	p.mu.Lock()
	c, ok := p.clients[addr]
	p.mu.Unlock()
	if ok {
		p.Discard(addr, c)
	}
}

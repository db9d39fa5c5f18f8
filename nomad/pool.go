package nomad

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

// errPoolClosed is returned by calls made after the pool was closed.
var errPoolClosed = errors.New("rpc connection pool closed")

// connPool keeps one RPC client per server address. A net/rpc client
// multiplexes concurrent calls over its connection, so one is enough.
type connPool struct {
	dialTimeout time.Duration
	dialer      *rpcDialer

	mu      sync.Mutex
	clients map[string]*pooledClient
	closed  bool
}

// pooledClient is an RPC client and the connection under it.
type pooledClient struct {
	*rpc.Client
	conn net.Conn
	// sendMu serializes send's writes (pool_send.go).
	sendMu sync.Mutex
}

func newConnPool(dialTimeout time.Duration, dialer *rpcDialer) *connPool {
	return &connPool{
		dialTimeout: dialTimeout,
		dialer:      dialer,
		clients:     make(map[string]*pooledClient),
	}
}

// call invokes method on the server at addr. Errors the remote endpoint
// returned come back decoded (see decodeRPCError); a call whose connection
// turns out to be dead is retried once on a new connection.
func (p *connPool) call(ctx context.Context, addr, method string, args, reply any) error {
	err := p.callOnce(ctx, addr, method, args, reply)
	if errors.Is(err, rpc.ErrShutdown) {
		// The pooled connection had died (the peer restarted, say).
		err = p.callOnce(ctx, addr, method, args, reply)
	}
	return err
}

func (p *connPool) callOnce(ctx context.Context, addr, method string, args, reply any) error {
	client, err := p.client(ctx, addr)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		// The caller gave up while the connection was dialled: a call
		// sent now would run with nobody waiting for its answer.
		return &dialError{addr: addr, err: err}
	}
	// The reply is decoded into a value of our own and copied into reply
	// on success: an answer that arrives after the caller gave up must not
	// write into what the caller holds.
	replyType := reflect.TypeOf(reply)
	if replyType == nil || replyType.Kind() != reflect.Pointer {
		return fmt.Errorf("rpc %s: reply must be a pointer, got %T", method, reply)
	}
	own := reflect.New(replyType.Elem())
	call := client.send(ctx, method, args, own.Interface())
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
		return decodeRPCError(call.Error)
	}
	p.discard(addr, client)
	if errors.Is(call.Error, rpc.ErrShutdown) {
		return call.Error
	}
	return fmt.Errorf("rpc %s to %s: %w", method, addr, call.Error)
}

// client returns the pooled client for addr, dialing one if needed.
func (p *connPool) client(ctx context.Context, addr string) (*pooledClient, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errPoolClosed
	}
	c, ok := p.clients[addr]
	p.mu.Unlock()
	if ok {
		if !peerClosed(c.conn) {
			return c, nil
		}
		// The server closed the connection since its last use (it
		// restarted, say): dial afresh rather than send into it.
		p.discard(addr, c)
	}

	timeout := p.dialTimeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = min(timeout, time.Until(dl))
	}
	if timeout <= 0 {
		return nil, &dialError{addr: addr, err: context.DeadlineExceeded}
	}
	conn, err := p.dialer.dial(addr, connTypeRPC, timeout)
	if err != nil {
		return nil, &dialError{addr: addr, err: err}
	}
	c = &pooledClient{Client: newRPCClient(conn), conn: conn}

	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		c.Close()
		return nil, errPoolClosed
	}
	if existing, ok := p.clients[addr]; ok {
		// Another caller dialed at the same time; keep theirs.
		c.Close()
		return existing, nil
	}
	p.clients[addr] = c
	return c, nil
}

// discard drops client from the pool if it is still the one for addr and
// closes it.
func (p *connPool) discard(addr string, client *pooledClient) {
	p.mu.Lock()
	if p.clients[addr] == client {
		delete(p.clients, addr)
	}
	p.mu.Unlock()
	client.Close()
}

// close closes every pooled connection; later calls fail.
func (p *connPool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for addr, c := range p.clients {
		c.Close()
		delete(p.clients, addr)
	}
}

// dialError is a failure to connect, or a caller that gave up before the
// connection was made: the call was never sent.
type dialError struct {
	addr string
	err  error
}

func (e *dialError) Error() string { return fmt.Sprintf("dial %s: %v", e.addr, e.err) }

func (e *dialError) Unwrap() error { return e.err }

package rpc

import (
	"context"
	"errors"
	"net/rpc"
	"os"
	"time"
)

// Send writes a call on the client's connection and returns it, giving up
// the write when ctx ends. A receiver that stopped reading (a stopped
// process, a partition) lets a large call fill the socket buffers, and a
// write into them would wait for ever, out of reach of the caller's
// context. Sends are serialized here so that each write runs under its own
// caller's deadline. A write cut short leaves part of a call on the
// connection, which is then closed: the pool dials afresh.
func (c *PooledClient) Send(ctx context.Context, method string, args, reply any) *rpc.Call {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	deadline, _ := ctx.Deadline() // zero: none, whatever the last send set
	_ = c.Conn.SetWriteDeadline(deadline)
	cut := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		_ = c.Conn.SetWriteDeadline(time.Now())
		close(cut)
	})
	call := c.Go(method, args, reply, make(chan *rpc.Call, 1))
	if !stop() {
		<-cut // the next send sets its own deadline
	}
	// net/rpc finishes a call whose write failed before Go returns; a
	// call still pending was written whole.
	select {
	case done := <-call.Done:
		call.Done <- done // for the caller, who waits on it
		if errors.Is(done.Error, os.ErrDeadlineExceeded) {
			c.Close()
		}
	default:
	}
	return call
}

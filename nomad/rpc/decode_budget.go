package rpc

import (
	"net/rpc"
	"sync"
)

// budgetCodec keeps the budget a request took (request_limit.go)
// until its call has answered: what a call holds in memory (its decoded
// arguments, and what its handler builds from them) is bounded by the
// bytes of its request, and so all a role's calls by the role's budget.
type budgetCodec struct {
	rpc.ServerCodec
	conn *requestLimitConn

	mu   sync.Mutex
	held map[uint64]int64 // by request sequence number
}

func holdBudget(c rpc.ServerCodec, conn *requestLimitConn) rpc.ServerCodec {
	return &budgetCodec{ServerCodec: c, conn: conn, held: make(map[uint64]int64)}
}

func (c *budgetCodec) ReadRequestHeader(r *rpc.Request) error {
	if err := c.ServerCodec.ReadRequestHeader(r); err != nil {
		return err
	}
	n := c.conn.claimCompleted()
	c.mu.Lock()
	c.held[r.Seq] += n
	c.mu.Unlock()
	return nil
}

func (c *budgetCodec) WriteResponse(r *rpc.Response, body any) error {
	err := c.ServerCodec.WriteResponse(r, body)
	c.mu.Lock()
	n := c.held[r.Seq]
	delete(c.held, r.Seq)
	c.mu.Unlock()
	c.conn.give(n)
	return err
}

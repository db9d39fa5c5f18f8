package rpc

import (
	"errors"
	"io"
	"net/rpc"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/shoenig/test/must"
)

// pipelinedCodec is a peer that has sent 100 calls, more than the server
// may run at once, and then waits to hang up.
type pipelinedCodec struct {
	read    atomic.Int64
	written atomic.Int64
	hangup  chan struct{}
}

func (c *pipelinedCodec) ReadRequestHeader(r *rpc.Request) error {
	if c.read.Load() == 100 {
		<-c.hangup
		return io.EOF
	}
	n := c.read.Add(1)
	r.ServiceMethod, r.Seq = "Slow.Call", uint64(n)
	return nil
}
func (c *pipelinedCodec) ReadRequestBody(any) error { return nil }
func (c *pipelinedCodec) WriteResponse(*rpc.Response, any) error {
	c.written.Add(1)
	return nil
}
func (c *pipelinedCodec) Close() error { return nil }

// slowRPC answers a call once release is closed.
type slowRPC struct{ release chan struct{} }

func (s *slowRPC) Call(_ *struct{}, _ *struct{}) error {
	<-s.release
	return nil
}

func TestInflightCodec_boundsCallsOfAConnection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		slow := &slowRPC{release: make(chan struct{})}
		srv := rpc.NewServer()
		must.NoError(t, srv.RegisterName("Slow", slow))
		peer := &pipelinedCodec{hangup: make(chan struct{})}
		served := make(chan struct{})
		go func() {
			srv.ServeCodec(limitCallsInFlight(peer, 4))
			close(served)
		}()

		synctest.Wait()
		must.Eq(t, 4, peer.read.Load(), must.Sprint("the server reads no call beyond the bound"))

		close(peer.hangup)
		close(slow.release)
		synctest.Wait()
		<-served
		must.Eq(t, 100, peer.read.Load(), must.Sprint("the rest is read as calls answer"))
		must.Eq(t, 100, peer.written.Load(), must.Sprint("every call read is answered"))
	})
}

// badHeaderCodec fails every header read but the first.
type badHeaderCodec struct{ pipelinedCodec }

func (c *badHeaderCodec) ReadRequestHeader(r *rpc.Request) error {
	if c.read.Add(1) > 1 {
		return errors.New("garbage")
	}
	r.ServiceMethod = "Slow.Call"
	return nil
}

func TestInflightCodec_givesBackTheSlotOfAnUnreadHeader(t *testing.T) {
	c := limitCallsInFlight(&badHeaderCodec{}, 1).(*inflightCodec)
	var r rpc.Request
	must.NoError(t, c.ReadRequestHeader(&r))
	must.NoError(t, c.WriteResponse(&rpc.Response{}, nil))
	must.Error(t, c.ReadRequestHeader(&r))
	must.Eq(t, 0, len(c.slots))
}

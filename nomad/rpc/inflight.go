package rpc

import "net/rpc"

// maxCallsInFlight bounds the calls one RPC connection may have running at
// once. net/rpc starts a goroutine for each call as soon as it has read the
// call, so without a bound a peer that pipelines calls (blocking queries,
// say) grows the server's goroutines, and the memory their arguments hold,
// without limit. At the bound the server stops reading the connection
// until one of its calls has answered, which pushes back on the peer
// through TCP; a well-behaved agent has a handful of calls in flight.
const maxCallsInFlight = 64

// inflightCodec holds a connection's calls to maxCallsInFlight: a slot is
// taken before each request header is read and given back when its
// response is written. net/rpc writes exactly one response for every
// header it read, including the refusals of unknown methods and
// undecodable bodies; when a header cannot be read it stops serving the
// connection, so that slot is given back at once.
type inflightCodec struct {
	rpc.ServerCodec
	slots chan struct{}
}

func limitCallsInFlight(c rpc.ServerCodec, max int) rpc.ServerCodec {
	return &inflightCodec{ServerCodec: c, slots: make(chan struct{}, max)}
}

func (c *inflightCodec) ReadRequestHeader(r *rpc.Request) error {
	c.slots <- struct{}{}
	if err := c.ServerCodec.ReadRequestHeader(r); err != nil {
		<-c.slots
		return err
	}
	return nil
}

func (c *inflightCodec) WriteResponse(r *rpc.Response, body any) error {
	defer func() { <-c.slots }()
	return c.ServerCodec.WriteResponse(r, body)
}

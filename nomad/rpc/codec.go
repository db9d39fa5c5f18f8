package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/rpc"
	"sync"
)

// The RPC codecs speak JSON-RPC 1.0 exactly as net/rpc/jsonrpc does, so
// that agents of either kind talk to each other, but read through a
// frameDecoder: jsonrpc's json.Decoder keeps, for as long as the
// connection lives, a buffer twice the largest message it ever read, and
// a server's connections from clients that once sent the updates of
// thousands of allocations each held megabytes for nothing.

// shedAfter is the size of message after which a frameDecoder lets its
// buffer go.
const shedAfter = 64 << 10

// frameDecoder reads a stream of JSON values, starting afresh after a
// value of more than shedAfter bytes, with what it had read ahead, so
// that the buffer the large value needed is freed.
type frameDecoder struct {
	r   io.Reader
	dec *json.Decoder
	// offset is dec's input offset after the last value.
	offset int64
}

func newFrameDecoder(r io.Reader) *frameDecoder {
	return &frameDecoder{r: r, dec: json.NewDecoder(r)}
}

// Decode reads the next value into v.
func (d *frameDecoder) Decode(v any) error {
	err := d.dec.Decode(v)
	end := d.dec.InputOffset()
	if end-d.offset <= shedAfter {
		d.offset = end
		return err
	}
	ahead, readErr := io.ReadAll(d.dec.Buffered())
	if readErr != nil { // a bytes.Reader: never
		return errors.Join(err, readErr)
	}
	d.dec = json.NewDecoder(io.MultiReader(bytes.NewReader(ahead), d.r))
	d.offset = 0
	return err
}

// rpcServerCodec is the server side of a connection.
type rpcServerCodec struct {
	dec    *frameDecoder
	enc    *json.Encoder
	closer io.Closer
	// req is the request being read: its params are decoded by
	// ReadRequestBody.
	req rpcWireRequest

	mu sync.Mutex
	// seq numbers requests for net/rpc; ids holds each one's JSON id
	// until it is answered (a client may use any JSON value).
	seq uint64
	ids map[uint64]*json.RawMessage
}

// newServerCodec serves JSON-RPC on conn.
func newServerCodec(conn io.ReadWriteCloser) rpc.ServerCodec {
	return &rpcServerCodec{
		dec:    newFrameDecoder(conn),
		enc:    json.NewEncoder(conn),
		closer: conn,
		ids:    make(map[uint64]*json.RawMessage),
	}
}

// rpcWireRequest is a request as read by the server.
type rpcWireRequest struct {
	Method string           `json:"method"`
	Params *json.RawMessage `json:"params"`
	ID     *json.RawMessage `json:"id"`
}

// rpcWireResponse is a response as written by the server.
type rpcWireResponse struct {
	ID     *json.RawMessage `json:"id"`
	Result any              `json:"result"`
	Error  any              `json:"error"`
}

func (c *rpcServerCodec) ReadRequestHeader(r *rpc.Request) error {
	c.req = rpcWireRequest{}
	if err := c.dec.Decode(&c.req); err != nil {
		return err
	}
	c.mu.Lock()
	c.seq++
	c.ids[c.seq] = c.req.ID
	r.Seq = c.seq
	c.mu.Unlock()
	r.ServiceMethod = c.req.Method
	return nil
}

func (c *rpcServerCodec) ReadRequestBody(body any) error {
	params := c.req.Params
	c.req.Params = nil
	if body == nil {
		return nil
	}
	if params == nil {
		return errors.New("rpc request has no params")
	}
	// The params are an array of the one argument.
	return json.Unmarshal(*params, &[1]any{body})
}

// jsonNull is the id of an answer to a request that had none.
var jsonNull = json.RawMessage("null")

func (c *rpcServerCodec) WriteResponse(r *rpc.Response, result any) error {
	c.mu.Lock()
	id, ok := c.ids[r.Seq]
	delete(c.ids, r.Seq)
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("rpc response to request %d, which is not pending", r.Seq)
	}
	if id == nil {
		id = &jsonNull
	}
	resp := rpcWireResponse{ID: id}
	if r.Error == "" {
		resp.Result = result
	} else {
		resp.Error = r.Error
	}
	return c.enc.Encode(resp)
}

func (c *rpcServerCodec) Close() error { return c.closer.Close() }

// rpcClientCodec is the client side of a connection.
type rpcClientCodec struct {
	dec    *frameDecoder
	enc    *json.Encoder
	closer io.Closer
	// resp is the response being read: its result is decoded by
	// ReadResponseBody.
	resp rpcWireResult

	mu sync.Mutex
	// methods holds the method of each request until it is answered:
	// responses do not name it.
	methods map[uint64]string
}

// NewClient returns a client of JSON-RPC on conn.
func NewClient(conn io.ReadWriteCloser) *rpc.Client {
	return rpc.NewClientWithCodec(&rpcClientCodec{
		dec:     newFrameDecoder(conn),
		enc:     json.NewEncoder(conn),
		closer:  conn,
		methods: make(map[uint64]string),
	})
}

// rpcWireCall is a request as written by the client.
type rpcWireCall struct {
	Method string `json:"method"`
	Params [1]any `json:"params"`
	ID     uint64 `json:"id"`
}

// rpcWireResult is a response as read by the client.
type rpcWireResult struct {
	ID     uint64           `json:"id"`
	Result *json.RawMessage `json:"result"`
	Error  any              `json:"error"`
}

func (c *rpcClientCodec) WriteRequest(r *rpc.Request, args any) error {
	c.mu.Lock()
	c.methods[r.Seq] = r.ServiceMethod
	c.mu.Unlock()
	return c.enc.Encode(rpcWireCall{Method: r.ServiceMethod, Params: [1]any{args}, ID: r.Seq})
}

func (c *rpcClientCodec) ReadResponseHeader(r *rpc.Response) error {
	c.resp = rpcWireResult{}
	if err := c.dec.Decode(&c.resp); err != nil {
		return err
	}
	c.mu.Lock()
	r.ServiceMethod = c.methods[c.resp.ID]
	delete(c.methods, c.resp.ID)
	c.mu.Unlock()
	r.Seq = c.resp.ID
	r.Error = ""
	if c.resp.Error == nil && c.resp.Result != nil {
		return nil
	}
	msg, ok := c.resp.Error.(string)
	if !ok {
		return fmt.Errorf("rpc response %d: error is %v, not a string", c.resp.ID, c.resp.Error)
	}
	if msg == "" {
		msg = "unspecified error"
	}
	r.Error = msg
	return nil
}

func (c *rpcClientCodec) ReadResponseBody(body any) error {
	result := c.resp.Result
	c.resp.Result = nil
	if body == nil {
		return nil
	}
	if result == nil {
		return errors.New("rpc response has no result")
	}
	return json.Unmarshal(*result, body)
}

func (c *rpcClientCodec) Close() error { return c.closer.Close() }

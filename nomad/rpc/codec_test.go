package rpc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/rpc"
	"net/rpc/jsonrpc"
	"runtime"
	"strings"
	"testing"

	"github.com/shoenig/test/must"
)

// echoRPC is an endpoint for the codec tests.
type echoRPC struct{}

type EchoArgs struct{ Text string }

func (echoRPC) Echo(args *EchoArgs, reply *EchoArgs) error {
	reply.Text = args.Text
	return nil
}

func (echoRPC) Fail(args *EchoArgs, _ *EchoArgs) error {
	return errors.New("failed: " + args.Text)
}

func echoServer(t *testing.T) *rpc.Server {
	t.Helper()
	srv := rpc.NewServer()
	must.NoError(t, srv.RegisterName("Echo", echoRPC{}))
	return srv
}

// callEcho makes an Echo call of text and a failing call through c.
func callEcho(t *testing.T, c *rpc.Client, text string) {
	t.Helper()
	var reply EchoArgs
	must.NoError(t, c.Call("Echo.Echo", &EchoArgs{Text: text}, &reply))
	must.Eq(t, text, reply.Text)
	err := c.Call("Echo.Fail", &EchoArgs{Text: "on purpose"}, &reply)
	must.EqError(t, err, "failed: on purpose")
	err = c.Call("Echo.Missing", &EchoArgs{}, &reply)
	must.ErrorContains(t, err, "can't find method Echo.Missing")
}

func TestRPCCodec_talksToNetRPCJSONRPC(t *testing.T) {
	large := strings.Repeat("x", 2*shedAfter)
	t.Run("our server, jsonrpc's client", func(t *testing.T) {
		a, b := net.Pipe()
		defer a.Close()
		go echoServer(t).ServeCodec(newServerCodec(a))
		c := jsonrpc.NewClient(b)
		defer c.Close()
		callEcho(t, c, "small")
		callEcho(t, c, large)
		callEcho(t, c, "small again")
	})
	t.Run("jsonrpc's server, our client", func(t *testing.T) {
		a, b := net.Pipe()
		defer a.Close()
		go echoServer(t).ServeCodec(jsonrpc.NewServerCodec(a))
		c := NewClient(b)
		defer c.Close()
		callEcho(t, c, "small")
		callEcho(t, c, large)
		callEcho(t, c, "small again")
	})
}

// A JSON-RPC client may number its requests with any JSON value; the
// answer carries the same one back.
func TestRPCCodec_answersWithTheRequestsOwnID(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	go echoServer(t).ServeCodec(newServerCodec(a))

	go func() {
		_, _ = io.WriteString(b, `{"method":"Echo.Echo","params":[{"Text":"hi"}],"id":"req-7"}`+"\n")
		_, _ = io.WriteString(b, `{"method":"Echo.Echo","params":[{"Text":"no id"}]}`+"\n")
	}()
	// The server answers calls as they finish, in any order.
	r := bufio.NewReader(b)
	ids := make(map[string]string)
	for range 2 {
		var got struct {
			ID     json.RawMessage
			Result EchoArgs
			Error  any
		}
		line, err := r.ReadBytes('\n')
		must.NoError(t, err)
		must.NoError(t, json.Unmarshal(line, &got))
		must.Nil(t, got.Error)
		ids[got.Result.Text] = string(got.ID)
	}
	must.Eq(t, map[string]string{"hi": `"req-7"`, "no id": "null"}, ids)
}

func TestRPCCodec_requestWithoutParamsIsRefused(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	go echoServer(t).ServeCodec(newServerCodec(a))
	go func() { _, _ = io.WriteString(b, `{"method":"Echo.Echo","id":1}`+"\n") }()
	line, err := bufio.NewReader(b).ReadBytes('\n')
	must.NoError(t, err)
	must.StrContains(t, string(line), "rpc request has no params")
}

// Values after a large one, read ahead with it, are decoded in order
// once the decoder starts afresh.
func TestFrameDecoder_keepsWhatItReadAhead(t *testing.T) {
	var stream bytes.Buffer
	enc := json.NewEncoder(&stream)
	want := []string{"a", strings.Repeat("b", 3*shedAfter), "c", strings.Repeat("d", shedAfter+1), "e"}
	for _, v := range want {
		must.NoError(t, enc.Encode(v))
	}
	d := newFrameDecoder(&stream)
	for i, w := range want {
		var got string
		must.NoError(t, d.Decode(&got), must.Sprintf("value %d", i))
		must.Eq(t, len(w), len(got), must.Sprintf("value %d", i))
		must.Eq(t, w, got, must.Sprintf("value %d", i))
	}
	var extra string
	must.ErrorIs(t, d.Decode(&extra), io.EOF)
}

// Decoders that each once read a large value hold next to nothing of it
// once they read a small one after it.
func TestFrameDecoder_freesTheBufferOfALargeValue(t *testing.T) {
	const decoders, size = 16, 1 << 20
	large := fmt.Sprintf("%q\n", strings.Repeat("x", size))
	decs := make([]*frameDecoder, decoders)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range decs {
		r, w := io.Pipe()
		go func() {
			_, _ = io.WriteString(w, large)
			_, _ = io.WriteString(w, `"small"`+"\n")
		}()
		decs[i] = newFrameDecoder(r)
		var v string
		must.NoError(t, decs[i].Decode(&v))
		must.Eq(t, size, len(v))
		must.NoError(t, decs[i].Decode(&v))
		must.Eq(t, "small", v)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(decs)
	grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	// json.Decoder would hold at least size bytes each.
	must.Less(t, int64(decoders*size/8), grew, must.Sprintf("%d decoders hold %d bytes", decoders, grew))
}

package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/gorilla/websocket"

	"github.com/drover-io/drover/internal/execstream"
)

// The frames of an exec session (`alloc exec`), with Nomad's names.
type (
	ExecStreamingIOOperation = execstream.IOOperation
	TerminalSize             = execstream.TerminalSize
	ExecStreamingInput       = execstream.InputFrame
	ExecStreamingExitResult  = execstream.ExitResult
	ExecStreamingOutput      = execstream.OutputFrame
)

// Exec runs command in the named task of a running allocation and
// streams it: stdin to it, its output to stdout and stderr (one stream,
// stdout, on a terminal), the sizes terminalSizeCh carries (nil for none)
// to its terminal when tty is set. It returns the command's exit code
// once it has exited; an agent's refusal, or the session's failure, is
// the error. Cancelling ctx ends the session and kills the command. The
// request goes to the agent the client talks to, which forwards it to
// the node that runs the allocation.
func (a *Allocations) Exec(ctx context.Context, alloc *Allocation, task string, tty bool, command []string,
	stdin io.Reader, stdout, stderr io.Writer, terminalSizeCh <-chan TerminalSize, q *QueryOptions) (int, error) {
	if alloc == nil {
		return -1, errNilAlloc
	}
	cmd, err := json.Marshal(command)
	if err != nil {
		return -1, fmt.Errorf("encode command: %w", err)
	}
	r := a.client.newRequest(http.MethodGet, clientAllocPath(alloc.ID, "exec"))
	a.client.applyQueryOptions(r, q)
	r.params.Del("wait")
	r.params.Set("task", task)
	r.params.Set("command", string(cmd))
	r.params.Set("tty", strconv.FormatBool(tty))
	r.ctx = ctx
	conn, err := a.client.websocket(r)
	if err != nil {
		return -1, err
	}
	defer conn.Close()
	return execstream.RunClient(ctx, conn, stdin, stdout, stderr, terminalSizeCh)
}

// websocket opens a websocket on the request's path, through the
// client's transport (its TLS configuration and proxy). A refusal is an
// UnexpectedResponseError, as any request's.
func (c *Client) websocket(r *request) (*websocket.Conn, error) {
	req, err := c.httpRequest(r)
	if err != nil {
		return nil, err
	}
	dialer := websocket.Dialer{ReadBufferSize: 4 << 10, WriteBufferSize: 4 << 10}
	if t, ok := c.http.Transport.(*http.Transport); ok {
		dialer.NetDialContext = t.DialContext
		dialer.Proxy = t.Proxy
		dialer.TLSClientConfig = t.TLSClientConfig
	}
	u := *req.URL
	switch u.Scheme {
	case "http":
		u.Scheme = "ws"
	case "https":
		u.Scheme = "wss"
	default:
		return nil, fmt.Errorf("exec: unsupported scheme %q", u.Scheme)
	}
	conn, resp, err := dialer.DialContext(r.ctx, u.String(), req.Header)
	if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
		defer resp.Body.Close()
		return nil, responseError(resp)
	}
	if err != nil {
		return nil, fmt.Errorf("exec: open the session: %w", err)
	}
	return conn, nil
}

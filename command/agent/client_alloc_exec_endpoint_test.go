package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/drivers/mock"
	"github.com/drover-io/drover/internal/execstream"
	"github.com/drover-io/drover/structs"
)

// execTestTimeout bounds one exec session in these tests.
const execTestTimeout = 60 * time.Second

// runningRawExecAlloc places a raw_exec task that sleeps on a's client
// and waits until it runs.
func runningRawExecAlloc(t *testing.T, a *Agent, id string) *structs.Allocation {
	t.Helper()
	job := rawExecJob(id, map[string]string{"web": "sleep 600"})
	placed := placeAlloc(t, a.Server(), job, a.Client().NodeID())
	waitAlloc(t, a.Server(), placed.ID, "running", clientStatusIs(structs.AllocClientStatusRunning))
	return placed
}

// officialAlloc reads the allocation through Nomad's client.
func officialAlloc(t *testing.T, client *nomadapi.Client, id string) *nomadapi.Allocation {
	t.Helper()
	alloc, _, err := client.Allocations().Info(id, nil)
	must.NoError(t, err)
	return alloc
}

// TestClientAllocExec_officialClient runs commands in a raw_exec task
// with Nomad's own Go client: output on both streams and the exit code,
// input piped in, and a terminal that follows the caller's size.
func TestClientAllocExec_officialClient(t *testing.T) {
	a := testClientAgent(t)
	placed := runningRawExecAlloc(t, a, "exec-official")
	client, err := nomadapi.NewClient(&nomadapi.Config{Address: "http://" + a.HTTPAddr()})
	must.NoError(t, err)
	alloc := officialAlloc(t, client, placed.ID)
	ctx, cancel := context.WithTimeout(t.Context(), execTestTimeout)
	defer cancel()

	t.Run("streams and exit code", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		code, err := client.Allocations().Exec(ctx, alloc, "web", false,
			[]string{"/bin/sh", "-c", `echo "out $NOMAD_TASK_NAME"; echo err >&2; pwd; exit 3`},
			strings.NewReader(""), &stdout, &stderr, nil, nil)
		must.NoError(t, err)
		must.Eq(t, 3, code)
		lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
		must.Eq(t, "out web", lines[0])
		// In the task's directory.
		must.StrHasSuffix(t, placed.ID+"/web", lines[1])
		must.Eq(t, "err\n", stderr.String())
	})

	t.Run("stdin piped", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		input := strings.Repeat("a line of input\n", 1000)
		code, err := client.Allocations().Exec(ctx, alloc, "web", false, []string{"cat"},
			strings.NewReader(input), &stdout, &stderr, nil, nil)
		must.NoError(t, err)
		must.Eq(t, 0, code)
		must.Eq(t, input, stdout.String())
	})

	t.Run("tty with resize", func(t *testing.T) {
		out := newWatchedBuffer()
		sizes := make(chan nomadapi.TerminalSize, 1)
		stdin, stdinW := io.Pipe()
		defer stdinW.Close()
		done := make(chan error, 1)
		var code int
		go func() {
			var err error
			code, err = client.Allocations().Exec(ctx, alloc, "web", true,
				[]string{"/bin/sh", "-c", `test -t 0 && test -t 1 && trap 'stty size; exit 7' WINCH; echo ready; while :; do sleep 0.1; done`},
				stdin, out, io.Discard, sizes, nil)
			done <- err
		}()
		must.NoError(t, out.waitFor(ctx, "ready"))
		sizes <- nomadapi.TerminalSize{Height: 31, Width: 101}
		must.NoError(t, out.waitFor(ctx, "31 101"))
		must.NoError(t, <-done)
		must.Eq(t, 7, code)
	})
}

// watchedBuffer is output a test waits on.
type watchedBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func newWatchedBuffer() *watchedBuffer { return &watchedBuffer{changed: make(chan struct{}, 1)} }

func (b *watchedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	select {
	case b.changed <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (b *watchedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitFor waits until the output holds s.
func (b *watchedBuffer) waitFor(ctx context.Context, s string) error {
	for !strings.Contains(b.String(), s) {
		select {
		case <-b.changed:
		case <-ctx.Done():
			return errors.New("output " + strconvQuote(b.String()) + " never held " + strconvQuote(s))
		}
	}
	return nil
}

func strconvQuote(s string) string { q, _ := json.Marshal(s); return string(q) }

// aclClientAgent is a client agent with ACLs on, bootstrapped; it
// returns the management secret.
func aclClientAgent(t *testing.T) (*Agent, string) {
	t.Helper()
	a := testClientAgent(t, func(c *config.Config) { c.ACL.Enabled = true })
	resp := do(t, a, http.MethodPut, "/v1/acl/bootstrap", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	var token api.ACLToken
	must.NoError(t, json.Unmarshal(resp.body, &token))
	return a, token.SecretID
}

// TestClientAllocExec_capabilities: alloc-exec is needed, and for a
// raw_exec task alloc-node-exec too; a token sent in the first frame
// (?ws_handshake=true) is held to the same.
func TestClientAllocExec_capabilities(t *testing.T) {
	a, mgmt := aclClientAgent(t)
	placed := runningRawExecAlloc(t, a, "exec-acl")
	reader := tokenWith(t, a, mgmt, "reader", `namespace "default" { policy = "read" }`)
	execOnly := tokenWith(t, a, mgmt, "exec-only", `namespace "default" { capabilities = ["read-job", "alloc-exec"] }`)
	nodeExec := tokenWith(t, a, mgmt, "node-exec", `namespace "default" { capabilities = ["read-job", "alloc-exec", "alloc-node-exec"] }`)
	ctx, cancel := context.WithTimeout(t.Context(), execTestTimeout)
	defer cancel()

	for _, tc := range []struct {
		name, secret string
		refusal      string
		// beforeUpgrade: the route's check refuses with a 403; the
		// handler's, after the upgrade, with a close reason.
		beforeUpgrade bool
	}{
		{"no token", "", "Permission denied", true},
		{"read only", reader.SecretID, "alloc-exec", true},
		{"alloc-exec on raw_exec", execOnly.SecretID, "alloc-node-exec", false},
		{"alloc-exec and alloc-node-exec", nodeExec.SecretID, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client, err := nomadapi.NewClient(&nomadapi.Config{Address: "http://" + a.HTTPAddr(), SecretID: tc.secret})
			must.NoError(t, err)
			alloc := &nomadapi.Allocation{ID: placed.ID, NodeID: placed.NodeID, Namespace: placed.Namespace}
			var stdout bytes.Buffer
			code, err := client.Allocations().Exec(ctx, alloc, "web", false, []string{"echo", "hi"},
				strings.NewReader(""), &stdout, io.Discard, nil, nil)
			if tc.refusal == "" {
				must.NoError(t, err)
				must.Eq(t, 0, code)
				must.Eq(t, "hi\n", stdout.String())
				return
			}
			must.Error(t, err)
			if tc.beforeUpgrade {
				must.StrContains(t, err.Error(), "403")
			}
			must.StrContains(t, err.Error(), "Permission denied")
			must.StrContains(t, err.Error(), tc.refusal)
			must.Eq(t, "", stdout.String())

			// The same token in the first frame is refused alike.
			if tc.secret != "" {
				err := handshakeExec(t, a, placed.ID, tc.secret, nil)
				must.StrContains(t, err.Error(), tc.refusal)
			}
		})
	}
	var out bytes.Buffer
	must.NoError(t, handshakeExec(t, a, placed.ID, nodeExec.SecretID, &out))
	must.Eq(t, "hi\n", out.String())
}

// handshakeExec runs `echo hi` in the task as a browser does: the token in
// the first frame. It returns the reason the agent gave for ending the
// session, or nil when the command exited 0.
func handshakeExec(t *testing.T, a *Agent, allocID, secret string, out io.Writer) error {
	t.Helper()
	q := url.Values{"task": {"web"}, "command": {`["echo","hi"]`}, "ws_handshake": {"true"}}
	u := "ws://" + a.HTTPAddr() + "/v1/client/allocation/" + allocID + "/exec?" + q.Encode()
	conn, resp, err := websocket.DefaultDialer.DialContext(t.Context(), u, nil)
	must.NoError(t, err)
	resp.Body.Close()
	defer conn.Close()
	must.NoError(t, conn.WriteJSON(execstream.Handshake{Version: 1, AuthToken: secret}))
	if out == nil {
		out = io.Discard
	}
	ctx, cancel := context.WithTimeout(t.Context(), execTestTimeout)
	defer cancel()
	code, err := execstream.RunClient(ctx, conn, strings.NewReader(""), out, io.Discard, nil)
	if err == nil && code != 0 {
		t.Fatalf("exit code %d", code)
	}
	return err
}

// TestClientAllocExec_forwardedToTheNode: a server agent that does not
// run the allocation hands the socket to the node that does.
func TestClientAllocExec_forwardedToTheNode(t *testing.T) {
	srv := testAgent(t, func(cfg *config.Config) { cfg.Server.EncryptKey = testEncryptKey })
	c := testClientAgent(t, func(cfg *config.Config) {
		cfg.NodeName = "exec-remote"
		cfg.Server.Enabled = false
		cfg.Client.RegistrationSecret = testRegistrationSecret
		cfg.Client.Servers = []string{srv.Server().RPCAddr().String()}
	})
	job := rawExecJob("exec-remote", map[string]string{"web": "sleep 600"})
	placed := placeAlloc(t, srv.Server(), job, c.Client().NodeID())
	waitAlloc(t, srv.Server(), placed.ID, "running", clientStatusIs(structs.AllocClientStatusRunning))

	client, err := nomadapi.NewClient(&nomadapi.Config{Address: "http://" + srv.HTTPAddr()})
	must.NoError(t, err)
	// An empty node ID: the official client goes through the server.
	alloc := &nomadapi.Allocation{ID: placed.ID, Namespace: placed.Namespace}
	ctx, cancel := context.WithTimeout(t.Context(), execTestTimeout)
	defer cancel()
	var stdout bytes.Buffer
	code, err := client.Allocations().Exec(ctx, alloc, "web", false, []string{"/bin/sh", "-c", "cat; exit 2"},
		strings.NewReader("through the server\n"), &stdout, io.Discard, nil, nil)
	must.NoError(t, err)
	must.Eq(t, 2, code)
	must.Eq(t, "through the server\n", stdout.String())
}

// TestClientAllocExec_badInput: what the request gets wrong is refused
// with what and where, before the socket opens where it can be.
func TestClientAllocExec_badInput(t *testing.T) {
	a := testClientAgent(t)
	placed := runningRawExecAlloc(t, a, "exec-bad")
	done := rawExecJob("exec-done", map[string]string{"web": "true"})
	finished := placeAlloc(t, a.Server(), done, a.Client().NodeID())
	waitAlloc(t, a.Server(), finished.ID, "complete", clientStatusIs(structs.AllocClientStatusComplete))

	path := func(id string, q url.Values) string {
		return "/v1/client/allocation/" + id + "/exec?" + q.Encode()
	}
	ok := url.Values{"task": {"web"}, "command": {`["echo"]`}}
	with := func(k, v string) url.Values {
		q := url.Values{}
		for key, vals := range ok {
			q[key] = vals
		}
		if v == "" {
			q.Del(k)
		} else {
			q.Set(k, v)
		}
		return q
	}
	for _, tc := range []struct {
		name, path string
		code       int
		reason     string
	}{
		{"no task", path(placed.ID, with("task", "")), http.StatusBadRequest, "missing ?task"},
		{"no command", path(placed.ID, with("command", "")), http.StatusBadRequest, "missing ?command"},
		{"command not an array", path(placed.ID, with("command", "echo hi")), http.StatusBadRequest, "JSON array of strings"},
		{"command of numbers", path(placed.ID, with("command", "[1,2]")), http.StatusBadRequest, "JSON array of strings"},
		{"empty command", path(placed.ID, with("command", "[]")), http.StatusBadRequest, "names no program"},
		{"oversize command", path(placed.ID, with("command", `["`+strings.Repeat("x", maxExecCommand)+`"]`)), http.StatusBadRequest, "the limit is"},
		{"bad tty", path(placed.ID, with("tty", "maybe")), http.StatusBadRequest, "?tty"},
		{"unknown task", path(placed.ID, with("task", "nope")), http.StatusNotFound, `task "nope" not found`},
		{"unknown alloc", path(structs.GenerateUUID(), ok), http.StatusNotFound, "Unknown allocation"},
		{"task not running", path(finished.ID, ok), http.StatusBadRequest, "is not running"},
		{"not a websocket", path(placed.ID, ok), http.StatusBadRequest, "websocket"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := do(t, a, http.MethodGet, tc.path, nil)
			must.Eq(t, tc.code, resp.code, must.Sprint(resp))
			must.StrContains(t, resp.String(), tc.reason)
		})
	}

	t.Run("after the upgrade, as Nomad", func(t *testing.T) {
		client, err := nomadapi.NewClient(&nomadapi.Config{Address: "http://" + a.HTTPAddr()})
		must.NoError(t, err)
		ctx, cancel := context.WithTimeout(t.Context(), execTestTimeout)
		defer cancel()
		unknown := structs.GenerateUUID()
		code, err := client.Allocations().Exec(ctx, &nomadapi.Allocation{ID: unknown}, "web", false, []string{"true"},
			strings.NewReader(""), io.Discard, io.Discard, nil, nil)
		must.Eq(t, -2, code)
		must.EqError(t, err, fmt.Sprintf("Unknown allocation %q", unknown))
		_, err = client.Allocations().Exec(ctx, &nomadapi.Allocation{ID: placed.ID}, "nope", false, []string{"true"},
			strings.NewReader(""), io.Discard, io.Discard, nil, nil)
		must.ErrorContains(t, err, `task "nope" not found`)
		_, err = client.Allocations().Exec(ctx, &nomadapi.Allocation{ID: finished.ID}, "web", false, []string{"true"},
			strings.NewReader(""), io.Discard, io.Discard, nil, nil)
		must.ErrorContains(t, err, "is not running")
		_, err = client.Allocations().Exec(ctx, &nomadapi.Allocation{ID: placed.ID}, "web", false, []string{"no-such-program"},
			strings.NewReader(""), io.Discard, io.Discard, nil, nil)
		must.ErrorContains(t, err, `"no-such-program" not found`)
	})

	t.Run("another origin", func(t *testing.T) {
		u := "ws://" + a.HTTPAddr() + path(placed.ID, ok)
		_, resp, err := websocket.DefaultDialer.DialContext(t.Context(), u, http.Header{"Origin": {"http://evil.example"}})
		must.Error(t, err)
		must.Eq(t, http.StatusForbidden, resp.StatusCode)
		resp.Body.Close()
	})

	t.Run("bad handshake", func(t *testing.T) {
		u := "ws://" + a.HTTPAddr() + path(placed.ID, with("ws_handshake", "true"))
		conn, resp, err := websocket.DefaultDialer.DialContext(t.Context(), u, nil)
		must.NoError(t, err)
		resp.Body.Close()
		defer conn.Close()
		must.NoError(t, conn.WriteJSON(execstream.Handshake{Version: 9}))
		_, _, err = conn.ReadMessage()
		must.ErrorContains(t, err, "unsupported handshake version 9")
	})

	t.Run("oversize frame", func(t *testing.T) {
		u := "ws://" + a.HTTPAddr() + path(placed.ID, with("command", `["cat"]`))
		conn, resp, err := websocket.DefaultDialer.DialContext(t.Context(), u, nil)
		must.NoError(t, err)
		resp.Body.Close()
		defer conn.Close()
		big := execstream.InputFrame{Stdin: &execstream.IOOperation{Data: make([]byte, execstream.MaxInputFrame)}}
		must.NoError(t, conn.WriteJSON(big))
		var closeErr *websocket.CloseError
		for {
			_, _, err := conn.ReadMessage()
			if err != nil {
				must.True(t, errors.As(err, &closeErr), must.Sprint(err))
				break
			}
		}
		must.Eq(t, websocket.CloseMessageTooBig, closeErr.Code)
	})

	t.Run("invalid frame", func(t *testing.T) {
		u := "ws://" + a.HTTPAddr() + path(placed.ID, with("command", `["cat"]`))
		conn, resp, err := websocket.DefaultDialer.DialContext(t.Context(), u, nil)
		must.NoError(t, err)
		resp.Body.Close()
		defer conn.Close()
		must.NoError(t, conn.WriteMessage(websocket.TextMessage, []byte(`{"stdin":`)))
		var err2 error
		for err2 == nil {
			_, _, err2 = conn.ReadMessage()
		}
		must.ErrorContains(t, err2, "invalid input frame")
	})
}

// TestClientAllocExec_driverWithoutExec: a task whose driver cannot run
// commands gets an error that says so.
func TestClientAllocExec_driverWithoutExec(t *testing.T) {
	a := testClientAgent(t, func(c *config.Config) {
		c.Plugins[mock.DriverName] = &config.PluginConfig{Name: mock.DriverName, Config: map[string]any{"enabled": true}}
	})
	job := rawExecJob("exec-mock", map[string]string{"web": ""})
	job.TaskGroups[0].Tasks[0].Driver = mock.DriverName
	job.TaskGroups[0].Tasks[0].Config = map[string]any{"run_for": "10m"}
	placed := placeAlloc(t, a.Server(), job, a.Client().NodeID())
	waitAlloc(t, a.Server(), placed.ID, "running", clientStatusIs(structs.AllocClientStatusRunning))

	client, err := nomadapi.NewClient(&nomadapi.Config{Address: "http://" + a.HTTPAddr()})
	must.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), execTestTimeout)
	defer cancel()
	code, err := client.Allocations().Exec(ctx, &nomadapi.Allocation{ID: placed.ID}, "web", false, []string{"true"},
		strings.NewReader(""), io.Discard, io.Discard, nil, nil)
	must.Eq(t, -2, code)
	must.ErrorContains(t, err, `driver "mock_driver": the task's driver cannot run commands in its tasks`)
}

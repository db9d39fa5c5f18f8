package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"sync"

	"github.com/gorilla/websocket"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/client/allocrunner"
	"github.com/drover-io/drover/client/allocrunner/taskrunner"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/internal/execstream"
	"github.com/drover-io/drover/nomad"
)

// maxExecCommand bounds the JSON of ?command.
const maxExecCommand = 64 << 10

// execRequest is what GET /v1/client/allocation/:id/exec asks, in its
// query parameters as Nomad's: ?task, ?command (a JSON array), ?tty.
type execRequest struct {
	task    string
	command []string
	tty     bool
}

// parseExecRequest reads and checks the query parameters.
func parseExecRequest(q url.Values) (*execRequest, error) {
	req := &execRequest{task: q.Get("task")}
	if req.task == "" {
		return nil, httpserver.BadRequest("missing ?task: name the task to run the command in")
	}
	raw := q.Get("command")
	switch {
	case raw == "":
		return nil, httpserver.BadRequest(`missing ?command: the command as a JSON array of strings, such as ["/bin/sh","-c","date"]`)
	case len(raw) > maxExecCommand:
		return nil, httpserver.BadRequest("?command is %d bytes; the limit is %d", len(raw), maxExecCommand)
	}
	if err := json.Unmarshal([]byte(raw), &req.command); err != nil {
		return nil, httpserver.BadRequest(`invalid ?command: it must be a JSON array of strings, such as ["/bin/sh","-c","date"]: %v`, err)
	}
	if len(req.command) == 0 || req.command[0] == "" {
		return nil, httpserver.BadRequest("invalid ?command: it names no program")
	}
	for _, name := range []string{"tty", "ws_handshake"} {
		v := q.Get(name)
		if v == "" {
			continue
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, httpserver.BadRequest("invalid ?%s=%q: it must be true or false", name, v)
		}
		if name == "tty" {
			req.tty = b
		}
	}
	return req, nil
}

// clientAllocExec serves GET /v1/client/allocation/:id/exec: it upgrades
// the request to a websocket and runs the command in the task, streamed
// as package execstream says. As in Nomad, malformed parameters are
// refused before the upgrade and everything else after it, in a close
// message whose text is the reason (what Nomad's client returns as the
// error), except the route's own permission check, which a request that
// sends its token as a header passes or fails before the handler runs.
// A request for an allocation on another node is forwarded to it whole,
// socket and all; that node makes the checks. A caller that sends its
// token in the first frame (?ws_handshake=true) is checked once it has:
// the route's check waits for it (httpserver.TokenInHandshake).
func (s *HTTPServer) clientAllocExec(w http.ResponseWriter, r *http.Request) (any, error) {
	req, err := parseExecRequest(r.URL.Query())
	if err != nil {
		return nil, err
	}
	if err := execstream.CheckOrigin(r, r.Header.Get(forwardedHeader) != ""); err != nil {
		return nil, httpserver.NewError(http.StatusForbidden, "%s", err.Error())
	}
	ar, err := s.clientAlloc(w, r)
	if ar == nil && err == nil {
		return nil, nil // forwarded
	}
	if err != nil {
		if code, _ := httpserver.ErrorStatus(err); code == http.StatusNotFound {
			err = httpserver.NotFound("Unknown allocation %q", r.PathValue("id"))
		}
	}
	check, handshake := httpserver.HandshakeCheck(r)
	var exec *taskrunner.Exec
	if err == nil && !handshake {
		exec, err = s.execTarget(r, ar, req.task)
	}
	if !websocket.IsWebSocketUpgrade(r) && err != nil {
		return nil, err
	}
	conn, uerr := execstream.Upgrade(w, r)
	if uerr != nil {
		s.logger.Debug("alloc exec", "path", r.URL.Path, "error", uerr)
		return nil, nil
	}
	if err == nil && handshake {
		var token string
		if token, err = execstream.ReadHandshake(conn); err != nil {
			err = httpserver.BadRequest("%s", err.Error())
		} else if r, err = check(token); err == nil {
			exec, err = s.execTarget(r, ar, req.task)
		}
	}
	if err != nil {
		code, reason := httpserver.ErrorStatus(err)
		execstream.Refuse(conn, code, errors.New(reason))
		return nil, nil
	}
	s.runExec(r.Context(), conn, ar, exec, req)
	return nil, nil
}

// execTarget checks that the task can run a command, and that the
// caller may: a task whose commands see the host (raw_exec) needs
// alloc-node-exec too, as in Nomad.
func (s *HTTPServer) execTarget(r *http.Request, ar *allocrunner.AllocRunner, task string) (*taskrunner.Exec, error) {
	if err := checkTask(ar, task); err != nil {
		return nil, err
	}
	exec, err := ar.TaskExec(task)
	switch {
	case errors.Is(err, taskrunner.ErrTaskNotRunning):
		return nil, httpserver.BadRequest("task %q of allocation %s is not running", task, ar.ID())
	case errors.Is(err, drivers.ErrExecNotSupported):
		return nil, httpserver.BadRequest("%s", err.Error())
	case err != nil:
		return nil, err
	}
	if exec.ReachesHost {
		ns := ar.Alloc().Namespace
		if !requestIdentity(r).acl.AllowNamespaceAny(ns, acl.CapAllocNodeExec) {
			return nil, fmt.Errorf("%w: task %q runs without isolation from the host: a command in it needs %s as well as %s in namespace %q",
				nomad.ErrPermissionDenied, task, acl.CapAllocNodeExec, acl.CapAllocExec, ns)
		}
	}
	return exec, nil
}

// runExec runs the command over conn until it exits or the caller goes.
func (s *HTTPServer) runExec(ctx context.Context, conn *websocket.Conn, ar *allocrunner.AllocRunner, exec *taskrunner.Exec, req *execRequest) {
	logger := s.logger.With("alloc_id", ar.ID(), "task", req.task)
	logger.Info("alloc exec: session started", "command", req.command, "tty", req.tty)
	err := execstream.Serve(ctx, conn, func(ctx context.Context, st execstream.Streams) (int, error) {
		ctx, cancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		defer wg.Wait()
		defer cancel()
		resize := make(chan drivers.TerminalSize, 1)
		wg.Go(func() {
			for {
				select {
				case <-ctx.Done():
					return
				case size := <-st.Resize:
					select {
					case resize <- drivers.TerminalSize{Height: size.Height, Width: size.Width}:
					case <-ctx.Done():
						return
					}
				}
			}
		})
		res, err := exec.Run(ctx, &drivers.ExecOptions{
			Command: req.command,
			Tty:     req.tty,
			Stdin:   st.Stdin,
			Stdout:  st.Stdout,
			Stderr:  st.Stderr,
			Resize:  resize,
		})
		if err != nil {
			return 0, err
		}
		return drivers.ExecExitCode(res), nil
	})
	if err != nil {
		logger.Info("alloc exec: the command could not run", "error", err)
		return
	}
	logger.Info("alloc exec: session ended")
}

package docker

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shoenig/test/wait"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/internal/dockertest"
	"github.com/drover-io/drover/internal/waitfor"
)

// TestDriver_ExecTaskStreaming runs commands in a running container
// through the engine's exec API: both streams and the exit code, input
// piped, a terminal at the caller's size that follows a resize, and a
// command killed when its caller goes away.
func TestDriver_ExecTaskStreaming(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{})
	d := newTestDriver(t, nil)
	cfg, _ := newTaskConfig(t, e.image.Ref, "sleep", "10m")
	startTask(t, d, cfg)
	must.False(t, d.ExecReachesHost())
	ctx, cancel := context.WithTimeout(t.Context(), exitTimeout)
	defer cancel()

	var stdout, stderr bytes.Buffer
	res, err := d.ExecTaskStreaming(ctx, cfg.ID, &drivers.ExecOptions{
		Command: []string{"/testapp", "print", "out", "eprint", "err", "ttysize", "exit", "5"},
		Stdout:  &stdout, Stderr: &stderr,
	})
	must.NoError(t, err)
	must.Eq(t, 5, res.ExitCode)
	must.Eq(t, "out\nno tty\n", stdout.String())
	must.Eq(t, "err\n", stderr.String())

	stdout.Reset()
	input := strings.Repeat("piped in\n", 2000)
	res, err = d.ExecTaskStreaming(ctx, cfg.ID, &drivers.ExecOptions{
		Command: []string{"/testapp", "cat", "/dev/stdin"},
		Stdin:   strings.NewReader(input),
		Stdout:  &stdout, Stderr: io.Discard,
	})
	must.NoError(t, err)
	must.Eq(t, 0, res.ExitCode)
	must.Eq(t, input, stdout.String())

	t.Run("terminal", func(t *testing.T) {
		// No size before it starts: engines before API 1.42 apply one
		// only after, racing the command.
		resize := make(chan drivers.TerminalSize, 1)
		out := &syncBuffer{}
		done := make(chan error, 1)
		go func() {
			res, err := d.ExecTaskStreaming(ctx, cfg.ID, &drivers.ExecOptions{
				Command: []string{"/testapp", "ttysize", "winch"},
				Tty:     true, Stdout: out, Stderr: io.Discard, Resize: resize,
			})
			if err == nil && res.ExitCode != 0 {
				err = fmt.Errorf("exit code %d", res.ExitCode)
			}
			done <- err
		}()
		waitOutput(t, out, "ready")
		must.StrNotContains(t, out.String(), "no tty")
		resize <- drivers.TerminalSize{Height: 42, Width: 120}
		must.NoError(t, <-done)
		must.StrContains(t, out.String(), "42 120")
	})

	t.Run("caller gone", func(t *testing.T) {
		callerCtx, leave := context.WithCancel(ctx)
		out := &syncBuffer{}
		type result struct {
			res *drivers.ExitResult
			err error
		}
		done := make(chan result, 1)
		go func() {
			res, err := d.ExecTaskStreaming(callerCtx, cfg.ID, &drivers.ExecOptions{
				Command: []string{"/testapp", "print", "ready", "sleep", "10m"},
				Stdout:  out, Stderr: io.Discard,
			})
			done <- result{res, err}
		}()
		waitOutput(t, out, "ready")
		leave()
		r := <-done
		must.NoError(t, r.err)
		must.Positive(t, r.res.Signal)
	})

	_, err = d.ExecTaskStreaming(ctx, "no-such-task", &drivers.ExecOptions{Command: []string{"/testapp"}, Stdout: io.Discard, Stderr: io.Discard})
	must.ErrorIs(t, err, drivers.ErrTaskNotFound)
}

// syncBuffer is output written by one goroutine and read by another.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitOutput waits until out holds s.
func waitOutput(t *testing.T, out *syncBuffer, s string) {
	t.Helper()
	waitfor.True(t, "the output to hold "+strconv.Quote(s), func() bool { return strings.Contains(out.String(), s) },
		wait.Timeout(20*time.Second))
}

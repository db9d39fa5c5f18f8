package rawexec

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/internal/waitfor"
)

// TestExecTaskStreaming runs interactive commands in a raw_exec task: in
// its directory with its environment, input piped, both streams, a
// terminal sized as asked, the end of a command left with a child in the
// background, and the kill of one whose caller went away.
func TestExecTaskStreaming(t *testing.T) {
	d := newTestDriver(t)
	cfg := newShellTask(t, "sleep 600")
	startTask(t, d, cfg)
	must.True(t, d.ExecReachesHost())
	ctx, cancel := context.WithTimeout(t.Context(), exitTimeout)
	defer cancel()

	var stdout, stderr bytes.Buffer
	res, err := d.ExecTaskStreaming(ctx, cfg.ID, &drivers.ExecOptions{
		Command: []string{"sh", "-c", `pwd; echo "$GREETING"; cat; echo oops >&2; test -t 0 || echo not-a-tty; exit 6`},
		Stdin:   strings.NewReader("typed\n"),
		Stdout:  &stdout, Stderr: &stderr,
	})
	must.NoError(t, err)
	must.Eq(t, 6, drivers.ExecExitCode(res))
	must.Eq(t, cfg.TaskDir+"\nhi\ntyped\nnot-a-tty\n", stdout.String())
	must.Eq(t, "oops\n", stderr.String())

	t.Run("terminal", func(t *testing.T) {
		resize := make(chan drivers.TerminalSize, 1)
		resize <- drivers.TerminalSize{Height: 12, Width: 34}
		var out bytes.Buffer
		res, err := d.ExecTaskStreaming(ctx, cfg.ID, &drivers.ExecOptions{
			Command: []string{"sh", "-c", "stty size; test -t 0 && test -t 2 && echo on-a-tty"},
			Tty:     true, Stdout: &out, Stderr: io.Discard, Resize: resize,
		})
		must.NoError(t, err)
		must.Eq(t, 0, res.ExitCode)
		must.Eq(t, "12 34\r\non-a-tty\r\n", out.String())
	})

	t.Run("background child keeps the output open", func(t *testing.T) {
		var out bytes.Buffer
		res, err := d.ExecTaskStreaming(ctx, cfg.ID, &drivers.ExecOptions{
			Command: []string{"sh", "-c", "echo before; sleep 600 & echo $!"},
			Stdout:  &out, Stderr: io.Discard,
		})
		must.NoError(t, err)
		must.Eq(t, 0, res.ExitCode)
		lines := strings.Fields(out.String())
		must.Len(t, 2, lines)
		must.Eq(t, "before", lines[0])
		child, err := strconv.Atoi(lines[1])
		must.NoError(t, err)
		must.NoError(t, syscall.Kill(child, syscall.SIGKILL))
	})

	t.Run("caller gone", func(t *testing.T) {
		callerCtx, leave := context.WithCancel(ctx)
		out := &lockedBuffer{}
		type result struct {
			res *drivers.ExitResult
			err error
		}
		done := make(chan result, 1)
		go func() {
			res, err := d.ExecTaskStreaming(callerCtx, cfg.ID, &drivers.ExecOptions{
				Command: []string{"sh", "-c", "echo $$; exec sleep 600"},
				Stdout:  out, Stderr: io.Discard,
			})
			done <- result{res, err}
		}()
		waitfor.True(t, "the command to start", func() bool { return strings.HasSuffix(out.String(), "\n") })
		leave()
		r := <-done
		must.NoError(t, r.err)
		must.Eq(t, int(syscall.SIGKILL), r.res.Signal)
		must.Eq(t, 128+9, drivers.ExecExitCode(r.res))
	})

	_, err = d.ExecTaskStreaming(ctx, cfg.ID, &drivers.ExecOptions{Command: []string{"no-such-program"}, Stdout: io.Discard, Stderr: io.Discard})
	must.ErrorContains(t, err, `"no-such-program" not found`)
	_, err = d.ExecTaskStreaming(ctx, "no-such-task", &drivers.ExecOptions{Command: []string{"true"}})
	must.ErrorIs(t, err, drivers.ErrTaskNotFound)
	_, err = d.ExecTaskStreaming(ctx, cfg.ID, &drivers.ExecOptions{})
	must.ErrorContains(t, err, "no command")
}

// lockedBuffer is output written by one goroutine and read by another.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

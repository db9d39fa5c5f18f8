package rawexec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/drover-io/drover/drivers"
)

// ExecTask runs cmd as the task runs: in its directory, with its
// environment, as its user. The command gets a process group of its own,
// killed whole at the timeout. An isolated task's command (the exec,
// java and exec2 drivers') runs inside its isolation, as alloc exec's
// does: never on the host.
func (d *Driver) ExecTask(ctx context.Context, taskID string, cmd []string, timeout time.Duration) (*drivers.ExecResult, error) {
	if len(cmd) == 0 || cmd[0] == "" {
		return nil, errors.New("exec: no command")
	}
	if d.isolate != nil {
		return d.execTaskIsolated(ctx, taskID, cmd, timeout)
	}
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return nil, err
	}
	cfg := t.cfg
	path, err := resolveCommand(cmd[0], cfg.TaskDir, cfg.Env["PATH"])
	if err != nil {
		return nil, fmt.Errorf("exec %s: %w", cmd[0], err)
	}
	cred, err := taskCredential(cfg.User)
	if err != nil {
		return nil, fmt.Errorf("exec %s: %w", cmd[0], err)
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	c := exec.CommandContext(ctx, path, cmd[1:]...)
	c.Args[0] = cmd[0]
	c.Dir = cfg.TaskDir
	c.Env = envList(cfg.Env)
	var out cappedBuffer
	c.Stdout, c.Stderr = &out, &out
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if cred != nil {
		c.SysProcAttr.Credential = cred.sys()
	}
	// Kill the whole group: a script's children go with it.
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	c.WaitDelay = time.Second
	err = c.Run()
	res := &drivers.ExecResult{ExitCode: c.ProcessState.ExitCode(), Output: out.Bytes()}
	if ctx.Err() != nil {
		return res, fmt.Errorf("exec %s: %w", cmd[0], ctx.Err())
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return res, fmt.Errorf("exec %s: %w", cmd[0], err)
	}
	return res, nil
}

// execTaskIsolated is ExecTask for an isolated task: the command runs
// through ExecTaskStreaming, inside the task's namespaces, root, cgroup
// and confinement, with no input, its output kept up to
// drivers.MaxExecOutput, and is killed at the timeout.
func (d *Driver) execTaskIsolated(ctx context.Context, taskID string, cmd []string, timeout time.Duration) (*drivers.ExecResult, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	var out lockedWriter
	res, err := d.ExecTaskStreaming(ctx, taskID, &drivers.ExecOptions{Command: cmd, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out})
	if ctx.Err() != nil {
		return &drivers.ExecResult{ExitCode: -1, Output: out.bytes()}, fmt.Errorf("exec %s: %w", cmd[0], ctx.Err())
	}
	if err != nil {
		return nil, fmt.Errorf("exec %s: %w", cmd[0], err)
	}
	return &drivers.ExecResult{ExitCode: drivers.ExecExitCode(res), Output: out.bytes()}, nil
}

// lockedWriter is a cappedBuffer that the command's stdout and stderr,
// copied by goroutines of their own, may write to at once.
type lockedWriter struct {
	mu  sync.Mutex
	buf cappedBuffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func (w *lockedWriter) bytes() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return bytes.Clone(w.buf.Bytes())
}

// cappedBuffer keeps the first drivers.MaxExecOutput bytes written to it.
// It embeds no bytes.Buffer: io.Copy would use the buffer's ReadFrom and
// pass the cap by.
type cappedBuffer struct{ buf bytes.Buffer }

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := drivers.MaxExecOutput - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// Bytes returns what was kept.
func (b *cappedBuffer) Bytes() []byte { return b.buf.Bytes() }

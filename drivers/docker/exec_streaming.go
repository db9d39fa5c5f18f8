package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"

	"github.com/drover-io/drover/drivers"
)

var _ drivers.ExecStreamer = (*Driver)(nil)

// execExitPolls bounds the wait, after an exec's output has ended, for
// the engine to record its exit: execExitPolls tries, execExitPoll apart.
const (
	execExitPolls = 100
	execExitPoll  = 50 * time.Millisecond
)

// ExecReachesHost: a command runs inside the task's container.
func (d *Driver) ExecReachesHost() bool { return false }

// ExecTaskStreaming runs an interactive command in the task's container
// through the engine's exec API (drivers.ExecStreamer), as the
// container's user and in its working directory, attached to its
// streams; on a terminal sized as the caller's when opts.Tty. Cancelling
// ctx kills the command.
func (d *Driver) ExecTaskStreaming(ctx context.Context, taskID string, opts *drivers.ExecOptions) (*drivers.ExitResult, error) {
	if len(opts.Command) == 0 || opts.Command[0] == "" {
		return nil, errors.New("exec: no command")
	}
	if d.client == nil {
		return nil, d.clientErr
	}
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return nil, err
	}
	if t.currentPhase() != phaseRunning || t.hasExited() {
		return nil, fmt.Errorf("task %q is not running", t.cfg.Name)
	}
	var console client.ConsoleSize
	if size, ok := opts.InitialSize(); ok {
		console = client.ConsoleSize{Height: uint(max(size.Height, 0)), Width: uint(max(size.Width, 0))}
	}
	created, err := d.client.ExecCreate(ctx, t.containerID(), client.ExecCreateOptions{
		TTY:          opts.Tty,
		ConsoleSize:  console,
		AttachStdin:  opts.Stdin != nil,
		AttachStdout: true,
		AttachStderr: true,
		Cmd:          opts.Command,
	})
	if err != nil {
		return nil, fmt.Errorf("exec in container %s: %w", shortID(t.containerID()), err)
	}
	att, err := d.client.ExecAttach(ctx, created.ID, client.ExecAttachOptions{TTY: opts.Tty, ConsoleSize: console})
	if err != nil {
		return nil, fmt.Errorf("exec in container %s: attach: %w", shortID(t.containerID()), err)
	}
	defer att.Close()
	if console.Height > 0 || console.Width > 0 {
		// Engines before API 1.42 take no size at the start: the first
		// resize is theirs.
		d.resize(created.ID, console.Height, console.Width)
	}

	done := make(chan struct{})
	defer close(done)
	if opts.Stdin != nil {
		go func() {
			_, _ = io.Copy(att.Conn, opts.Stdin)
			if opts.Tty {
				// The terminal's end of input, as a user types it: the
				// engine ends a terminal's whole stream when its input
				// is closed.
				_, _ = att.Conn.Write([]byte{4})
				return
			}
			_ = att.CloseWrite()
		}()
	}
	if opts.Tty && opts.Resize != nil {
		go d.resizeExec(created.ID, opts.Resize, done)
	}
	copied := make(chan error, 1)
	go func() {
		var err error
		if opts.Tty {
			_, err = io.Copy(opts.Stdout, att.Reader)
		} else {
			_, err = stdcopy.StdCopy(opts.Stdout, opts.Stderr, att.Reader)
		}
		copied <- err
	}()
	select {
	case <-copied:
	case <-ctx.Done():
		d.killExec(created.ID)
		att.Close()
		<-copied
		return &drivers.ExitResult{Signal: int(syscall.SIGKILL)}, nil
	}
	return d.execExit(created.ID)
}

// resizeExec applies the caller's terminal sizes until done.
func (d *Driver) resizeExec(execID string, sizes <-chan drivers.TerminalSize, done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		case size := <-sizes:
			d.resize(execID, uint(max(size.Height, 0)), uint(max(size.Width, 0)))
		}
	}
}

// resize sizes an exec's terminal.
func (d *Driver) resize(execID string, height, width uint) {
	ctx, cancel := engineCtx()
	defer cancel()
	if _, err := d.client.ExecResize(ctx, execID, client.ExecResizeOptions{Height: height, Width: width}); err != nil {
		d.logger.Debug("resize exec terminal", "exec_id", execID, "error", err)
	}
}

// execExit waits for the engine to record the exec's exit and returns
// its code.
func (d *Driver) execExit(execID string) (*drivers.ExitResult, error) {
	for range execExitPolls {
		ctx, cancel := engineCtx()
		res, err := d.client.ExecInspect(ctx, execID, client.ExecInspectOptions{})
		cancel()
		if err != nil {
			return nil, fmt.Errorf("exec %s: inspect: %w", execID, err)
		}
		if !res.Running {
			return &drivers.ExitResult{ExitCode: res.ExitCode}, nil
		}
		time.Sleep(execExitPoll)
	}
	return nil, fmt.Errorf("exec %s: its output ended but the engine still reports it running", execID)
}

// killExec kills an exec's process: the engine has no call for it, and
// its PID is the host's.
func (d *Driver) killExec(execID string) {
	ctx, cancel := engineCtx()
	defer cancel()
	res, err := d.client.ExecInspect(ctx, execID, client.ExecInspectOptions{})
	if err != nil || !res.Running || res.PID <= 0 {
		return
	}
	if err := syscall.Kill(res.PID, syscall.SIGKILL); err != nil {
		d.logger.Debug("kill exec process", "exec_id", execID, "pid", res.PID, "error", err)
	}
}

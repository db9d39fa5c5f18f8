package docker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"

	"github.com/drover-io/drover/drivers"
)

var _ drivers.Execer = (*Driver)(nil)

// ExecTask runs cmd in the task's container through the engine's exec
// API, as the container's user, in its working directory and
// environment. At the timeout the engine cannot be asked to kill the
// command: the attachment is dropped and the call fails, as with Nomad's
// driver.
func (d *Driver) ExecTask(ctx context.Context, taskID string, cmd []string, timeout time.Duration) (*drivers.ExecResult, error) {
	if len(cmd) == 0 || cmd[0] == "" {
		return nil, errors.New("exec: no command")
	}
	if d.clientErr != nil {
		return nil, d.clientErr
	}
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return nil, err
	}
	id := t.containerID()
	if id == "" || t.hasExited() {
		return nil, fmt.Errorf("exec %s: task %q is not running", cmd[0], taskID)
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	created, err := d.client.ExecCreate(ctx, id, client.ExecCreateOptions{AttachStdout: true, AttachStderr: true, Cmd: cmd})
	if err != nil {
		return nil, fmt.Errorf("exec %s: create: %w", cmd[0], err)
	}
	attached, err := d.client.ExecAttach(ctx, created.ID, client.ExecAttachOptions{})
	if err != nil {
		return nil, fmt.Errorf("exec %s: attach: %w", cmd[0], err)
	}
	defer attached.Close()
	var out cappedWriter
	copied := make(chan error, 1)
	go func() {
		_, err := stdcopy.StdCopy(&out, &out, attached.Reader)
		copied <- err
	}()
	select {
	case err = <-copied:
	case <-ctx.Done():
		attached.Close()
		<-copied
		return nil, fmt.Errorf("exec %s: %w", cmd[0], ctx.Err())
	}
	if err != nil {
		return nil, fmt.Errorf("exec %s: read output: %w", cmd[0], err)
	}
	// The output ends as the command does; the engine may record its exit
	// a moment later.
	for range 50 {
		inspected, err := d.client.ExecInspect(ctx, created.ID, client.ExecInspectOptions{})
		if err != nil {
			return nil, fmt.Errorf("exec %s: inspect: %w", cmd[0], err)
		}
		if !inspected.Running {
			return &drivers.ExecResult{ExitCode: inspected.ExitCode, Output: out.buf}, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("exec %s: %w", cmd[0], ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil, fmt.Errorf("exec %s: the engine still reports it running after its output ended", cmd[0])
}

// cappedWriter keeps the first drivers.MaxExecOutput bytes written to it.
type cappedWriter struct{ buf []byte }

func (w *cappedWriter) Write(p []byte) (int, error) {
	if room := drivers.MaxExecOutput - len(w.buf); room > 0 {
		w.buf = append(w.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

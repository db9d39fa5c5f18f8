package drivers

import (
	"context"
	"errors"
	"io"
)

// ErrExecNotSupported is the error of an interactive command in a task
// whose driver cannot run one.
var ErrExecNotSupported = errors.New("the task's driver cannot run commands in its tasks")

// ExecStreamer is a driver that can run an interactive command in a
// running task, as `alloc exec` does: in the task's context (its
// directory, environment and user; for an isolated task inside its
// namespaces and root), with its input and output streamed, and with a
// terminal when asked.
type ExecStreamer interface {
	// ExecTaskStreaming runs opts.Command in the task and returns once it
	// has exited and its output has been written. Cancelling ctx kills
	// the command (the caller went away).
	ExecTaskStreaming(ctx context.Context, taskID string, opts *ExecOptions) (*ExitResult, error)
	// ExecReachesHost reports whether such a command sees the host's
	// file system, as a raw_exec task does: Nomad then asks the caller
	// for alloc-node-exec as well as alloc-exec.
	ExecReachesHost() bool
}

// ExecOptions are an interactive command and its streams.
type ExecOptions struct {
	// Command is the program and its arguments.
	Command []string
	// Tty runs the command on a terminal: its output is one stream
	// (Stdout) and Resize changes the terminal's size.
	Tty bool

	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Resize carries the caller's terminal sizes; nil for none.
	Resize <-chan TerminalSize
}

// TerminalSize is a terminal's size in characters.
type TerminalSize struct {
	Height, Width int
}

// ExecExitCode is the exit code `alloc exec` reports for how a command
// ended: its own, or 128 plus the signal that killed it, as a shell
// reports it.
func ExecExitCode(r *ExitResult) int {
	if r.Signal > 0 {
		return 128 + r.Signal
	}
	return r.ExitCode
}

// InitialSize takes the size the caller's terminal has now, if it has
// sent one yet, so that the command's terminal starts at it.
func (o *ExecOptions) InitialSize() (TerminalSize, bool) {
	if !o.Tty || o.Resize == nil {
		return TerminalSize{}, false
	}
	select {
	case size := <-o.Resize:
		return size, true
	default:
		return TerminalSize{}, false
	}
}

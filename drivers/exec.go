package drivers

import (
	"context"
	"time"
)

// Execer is a driver that can run a command in a running task's context:
// its directory, its environment and its user. A template's change_script
// runs this way. Drivers that cannot do it do not implement it.
type Execer interface {
	// ExecTask runs cmd (a program and its arguments) and returns once it
	// has exited, or when timeout has passed or ctx is done (the command
	// is then killed, and err says so).
	ExecTask(ctx context.Context, taskID string, cmd []string, timeout time.Duration) (*ExecResult, error)
}

// ExecResult is how a command run by ExecTask ended.
type ExecResult struct {
	ExitCode int
	// Output is the command's stdout and stderr, cut at MaxExecOutput.
	Output []byte
}

// MaxExecOutput bounds what ExecResult keeps of a command's output.
const MaxExecOutput = 64 << 10

package servicecheck

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/drover-io/drover/drivers"
)

// ExecFunc runs cmd in a task, as drivers.Execer does for the task's run.
type ExecFunc func(ctx context.Context, cmd []string, timeout time.Duration) (*drivers.ExecResult, error)

// ScriptProbe runs Command in the task: exit code 0 passes, 1 warns, any
// other fails, as Nomad documents.
type ScriptProbe struct {
	Command []string
	Timeout time.Duration
	Exec    ExecFunc
}

// Probe implements Prober.
func (p ScriptProbe) Probe(ctx context.Context) Result {
	if p.Exec == nil {
		return Result{Health: Critical, Output: "nomad: script: the task's driver cannot run a command in it"}
	}
	res, err := p.Exec(ctx, p.Command, p.Timeout)
	if err != nil {
		msg := fmt.Sprintf("nomad: script %q: %v", p.Command[0], err)
		if errors.Is(err, context.DeadlineExceeded) {
			msg = fmt.Sprintf("nomad: script %q: timed out after %s", p.Command[0], p.Timeout)
		}
		return Result{Health: Critical, Output: cut(msg)}
	}
	out := Result{Output: cut(string(res.Output))}
	switch res.ExitCode {
	case 0:
		out.Health = Passing
	case 1:
		out.Health = Warning
	default:
		out.Health = Critical
	}
	return out
}

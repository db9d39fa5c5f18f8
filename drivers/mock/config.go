package mock

import (
	"errors"
	"fmt"
	"time"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/drivers/configschema"
	"github.com/drover-io/drover/drivers/shared/taskconfig"
)

// taskConfig is a mock task's `config` block. The keys are those of
// Nomad's mock driver.
type taskConfig struct {
	// RunFor is how long the task runs; zero exits at once.
	RunFor time.Duration
	// ExitCode, ExitSignal and ExitErrMsg make up the result of a task
	// that ran for RunFor.
	ExitCode   int
	ExitSignal int
	ExitErrMsg string

	// StartError makes StartTask fail with this message, after
	// StartBlockFor; StartErrorRecoverable marks that failure recoverable.
	StartError            string
	StartErrorRecoverable bool
	// StartBlockFor delays StartTask, like a slow image pull.
	StartBlockFor time.Duration

	// KillAfter is how long the task ignores StopTask's signal before it
	// exits; a SIGKILL still ends it at once.
	KillAfter time.Duration

	// StdoutString is written to the stdout log once at start, then
	// StdoutRepeat more times, StdoutRepeatDuration apart.
	StdoutString         string
	StdoutRepeat         int
	StdoutRepeatDuration time.Duration

	// SignalError makes SignalTask fail with this message.
	SignalError string
}

// parseConfig reads a task's config, which configschema.Mock defines.
func parseConfig(raw map[string]any) (*taskConfig, error) {
	r, err := configschema.Mock.Read(raw)
	if err != nil {
		return nil, err
	}
	c := &taskConfig{
		RunFor:                r.Duration("run_for"),
		ExitCode:              r.Int("exit_code"),
		ExitSignal:            readExitSignal(r),
		ExitErrMsg:            r.String("exit_err_msg"),
		StartError:            r.String("start_error"),
		StartErrorRecoverable: r.Bool("start_error_recoverable"),
		StartBlockFor:         r.Duration("start_block_for"),
		KillAfter:             r.Duration("kill_after"),
		StdoutString:          r.String("stdout_string"),
		StdoutRepeat:          r.Int("stdout_repeat"),
		StdoutRepeatDuration:  r.Duration("stdout_repeat_duration"),
		SignalError:           r.String("signal_error"),
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return c, nil
}

// readExitSignal accepts a signal number or a signal name.
func readExitSignal(r *taskconfig.Reader) int {
	if name, ok := r.Raw("exit_signal").(string); ok {
		sig, err := drivers.Signal(name)
		if err != nil {
			r.Fail(fmt.Errorf("config key %q: %w", "exit_signal", err))
		}
		return int(sig)
	}
	return r.Int("exit_signal")
}

// exitResult is the result of a task that ran its full RunFor.
func (c *taskConfig) exitResult() *drivers.ExitResult {
	r := &drivers.ExitResult{ExitCode: c.ExitCode, Signal: c.ExitSignal}
	if c.ExitErrMsg != "" {
		r.Err = errors.New(c.ExitErrMsg)
	}
	return r
}

package configschema

import (
	"fmt"

	"github.com/drover-io/drover/drivers/shared/taskconfig"
)

// Mock is the mock (test) driver's config; the keys are those of Nomad's
// mock driver.
var Mock = &taskconfig.Schema{
	Driver: "mock_driver",
	Keys: []taskconfig.Key{
		{Name: "run_for", Type: taskconfig.Duration},
		{Name: "exit_code", Type: taskconfig.Int},
		// exit_signal is a signal number or name; the driver resolves the
		// name with the signals of the machine it runs on.
		{Name: "exit_signal", Type: taskconfig.Any, Check: signalNumberOrName},
		{Name: "exit_err_msg", Type: taskconfig.String},
		{Name: "start_error", Type: taskconfig.String},
		{Name: "start_error_recoverable", Type: taskconfig.Bool},
		{Name: "start_block_for", Type: taskconfig.Duration},
		{Name: "kill_after", Type: taskconfig.Duration},
		{Name: "stdout_string", Type: taskconfig.String},
		{Name: "stdout_repeat", Type: taskconfig.Int, Check: taskconfig.NonNegative},
		{Name: "stdout_repeat_duration", Type: taskconfig.Duration},
		{Name: "signal_error", Type: taskconfig.String},
	},
}

func signalNumberOrName(v any) error {
	if s, ok := v.(string); ok {
		if s == "" {
			return fmt.Errorf("want a signal name or number, got %q", s)
		}
		return nil
	}
	n, err := taskconfig.Map{"exit_signal": v}.Int("exit_signal")
	if err != nil {
		return fmt.Errorf("want a signal name or number, got %T (%v)", v, v)
	}
	return taskconfig.NonNegative(n)
}

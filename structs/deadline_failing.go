package structs

import (
	"fmt"
	"strings"
)

// A deadline can pass while a task is already failing: its driver could not
// start it, its setup or an artifact failed, or it exited with an error,
// and it waits to be restarted when the budget runs out. Such an
// allocation did not merely run out of time: it ends failed, whatever
// max_run_outcome says, and its ClientDescription names the failure, so
// that neither `job run -wait` nor the UI reports a failure as a timeout.

// AllocTimeoutWhileFailing is the ClientDescription of an allocation whose
// max_run_duration passed while task was failing for the reason failure.
func AllocTimeoutWhileFailing(task, failure string) string {
	return fmt.Sprintf("%s while task %q was failing: %s", AllocTimeoutReasonMaxRunDuration, task, failure)
}

// ExceededMaxRun reports whether a client's ClientDescription says that
// the allocation's max_run_duration stopped it.
func ExceededMaxRun(description string) bool { return exceededMaxRun(description) }

// exceededMaxRun reports whether a ClientDescription says that the
// allocation's max_run_duration stopped it, on its own or while a task was
// failing.
func exceededMaxRun(description string) bool {
	return description == AllocTimeoutReasonMaxRunDuration ||
		strings.HasPrefix(description, AllocTimeoutReasonMaxRunDuration+" while ")
}

// IsFailure reports whether the event says that its task failed: it could
// not be set up, its artifacts or driver failed, or it exited with an
// error or on a signal.
func (e *TaskEvent) IsFailure() bool {
	switch e.Type {
	case TaskSetupFailure, TaskArtifactDownloadFailed, TaskDriverFailure:
		return true
	case TaskTerminated:
		return e.ExitCode != 0 || e.Signal != 0
	}
	return false
}

// FailureText is what a failure event says of the failure, for a
// description: its display message, else the error it carries, else its
// exit code.
func (e *TaskEvent) FailureText() string {
	for _, s := range []string{e.DisplayMessage, e.DriverError, e.SetupError, e.DownloadError, e.ValidationError, e.Message} {
		if s != "" {
			return s
		}
	}
	if e.Signal != 0 {
		return fmt.Sprintf("Exit Code: %d, Signal: %d", e.ExitCode, e.Signal)
	}
	return fmt.Sprintf("Exit Code: %d", e.ExitCode)
}

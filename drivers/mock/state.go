package mock

import (
	"errors"
	"time"

	"github.com/drover-io/drover/drivers"
)

// driverState is the mock's TaskHandle.DriverState: enough to tell, after
// an agent restart, whether and how the task has ended by now.
type driverState struct {
	StartedAt  time.Time
	RunFor     time.Duration
	ExitCode   int
	ExitSignal int
	ExitErrMsg string
}

func newDriverState(t *task) driverState {
	return driverState{
		StartedAt:  t.startedAt,
		RunFor:     t.conf.RunFor,
		ExitCode:   t.conf.ExitCode,
		ExitSignal: t.conf.ExitSignal,
		ExitErrMsg: t.conf.ExitErrMsg,
	}
}

// exitedBy reports whether the task has run its course at now, and its
// completion time.
func (s driverState) exitedBy(now time.Time) (time.Time, bool) {
	end := s.StartedAt.Add(s.RunFor)
	return end, !now.Before(end)
}

func (s driverState) result() *drivers.ExitResult {
	r := &drivers.ExitResult{ExitCode: s.ExitCode, Signal: s.ExitSignal}
	if s.ExitErrMsg != "" {
		r.Err = errors.New(s.ExitErrMsg)
	}
	return r
}

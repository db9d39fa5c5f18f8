package rawexec

import (
	"errors"
	"syscall"
	"time"
)

// errProcessGone is returned when a supervisor no longer runs.
var errProcessGone = errors.New("supervisor process is gone")

// pollInterval is how often pollSupervisor checks on a supervisor.
const pollInterval = 500 * time.Millisecond

// pollSupervisor is watchSupervisor for systems without pidfds: it checks
// on the process periodically.
func pollSupervisor(pid int, stateDir string) (func(), error) {
	running := func() bool { return processExists(pid) && isSupervisor(pid, stateDir) }
	if !running() {
		return nil, errProcessGone
	}
	return func() {
		ticker := time.NewTicker(pollInterval)
		defer ticker.Stop()
		for range ticker.C {
			if !running() {
				return
			}
		}
	}, nil
}

func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

package rawexec

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/drover-io/drover/drivers"
)

// errTaskLost is the result of a task whose supervisor died without
// recording how the task ended.
var errTaskLost = errors.New("task lost: supervisor exited without recording an exit status")

// driverState is raw_exec's TaskHandle.DriverState: where a later agent
// finds the task's supervisor and state file.
type driverState struct {
	StateDir      string    `json:"state_dir"`
	SupervisorPID int       `json:"supervisor_pid"`
	PID           int       `json:"pid"`
	PGID          int       `json:"pgid"`
	StartedAt     time.Time `json:"started_at"`
	// PIDNamespace is set when the task is the PID 1 of a PID namespace
	// of its own (an isolated task): see signal.
	PIDNamespace bool `json:"pid_namespace,omitempty"`
}

// task is a task this driver tracks, started or recovered.
type task struct {
	cfg   *drivers.TaskConfig
	state driverState

	// done is closed once result is set.
	done        chan struct{}
	mu          sync.Mutex
	result      *drivers.ExitResult
	completedAt time.Time
}

func newTask(cfg *drivers.TaskConfig, state driverState) *task {
	return &task{cfg: cfg, state: state, done: make(chan struct{})}
}

// watch waits for the supervisor to exit, then takes the task's result
// from the state file the supervisor left.
func (t *task) watch(waitSupervisor func()) {
	waitSupervisor()
	t.finish(resultFromState(t.cfg, t.state.StateDir))
}

// resultFromState reads how a task ended from its state file, once its
// supervisor is gone.
func resultFromState(cfg *drivers.TaskConfig, stateDir string) (*drivers.ExitResult, time.Time) {
	st, err := readStateAt(cfg, stateDir)
	switch {
	case err != nil:
		return &drivers.ExitResult{Err: fmt.Errorf("task lost: %w", err)}, time.Now()
	case st.State != stateExited:
		return &drivers.ExitResult{Err: errTaskLost}, time.Now()
	}
	return st.result(), st.FinishedAt
}

func (t *task) finish(result *drivers.ExitResult, at time.Time) {
	t.mu.Lock()
	t.result, t.completedAt = result, at
	t.mu.Unlock()
	close(t.done)
}

func (t *task) exited() bool { return drivers.Closed(t.done) }

// waitExit waits up to timeout for the task to exit.
func (t *task) waitExit(timeout time.Duration) bool { return drivers.WaitClosed(t.done, timeout) }

// signal sends sig to every process in the task's group. The group is
// only signalled while the task runs: once its supervisor has gone, the
// group's id may belong to someone else.
//
// A task that is the PID 1 of its own PID namespace gets no default
// action for a signal it does not handle: /bin/sleep would ignore the
// SIGINT that ends it anywhere else, and live on until the kill timeout.
// Where the default action would have ended it, it is ended as that
// action would, with SIGKILL, which a PID 1 cannot ignore.
func (t *task) signal(sig syscall.Signal) error {
	if t.exited() {
		return nil
	}
	err := syscall.Kill(-t.state.PGID, sig)
	if err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signal process group %d: %w", t.state.PGID, err)
	}
	if t.state.PIDNamespace && sig != syscall.SIGKILL && defaultActionEnds(t.state.PID, sig) {
		if err := syscall.Kill(t.state.PID, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("kill process %d: %w", t.state.PID, err)
		}
	}
	return nil
}

// Status is the task's status as InspectTask reports it.
func (t *task) Status() *drivers.TaskStatus {
	t.mu.Lock()
	defer t.mu.Unlock()
	return drivers.RunStatus(t.cfg, t.state.StartedAt, t.completedAt, t.result, map[string]string{
		"pid":            strconv.Itoa(t.state.PID),
		"pgid":           strconv.Itoa(t.state.PGID),
		"supervisor_pid": strconv.Itoa(t.state.SupervisorPID),
	})
}

package taskrunner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/drover-io/drover/client/state"
	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/internal/deadline"
	"github.com/drover-io/drover/structs"
)

// maxRunWatch enforces the task's own max_run_duration and sends its
// max_run_warning.
//
// At the task's own deadline the task, and only it, is killed with its
// kill_signal and kill_timeout, its Killing event saying "task exceeded
// max_run_duration", and the restart policy does not bring it back. The
// group's deadline is the alloc runner's to enforce; the watch only warns
// of it.
//
// The warning goes once, "before" ahead of the first deadline that applies
// to the task, its own or the allocation's (structs.Allocation.TaskWarning),
// with a Signaling event; its sending is recorded in the task's state
// (MaxRunWarnedAt) with that event, so that a restarted agent does not send
// it again. A warning due while the task is not running (its setup, a
// restart delay) goes as soon as it runs; one whose moment passed while the
// agent was down goes at once, as long as the deadline has not come.
//
// What is enforced is the allocation's structs.Allocation.TaskMaxRun for
// the task: the budget counted from the task's RunnerStartedAt, which the
// runner sets when it begins the task's first run (beginMaxRun) and
// persists, so that restarts and agent restarts do not move it. The time
// left is taken from that wall-clock anchor once, when the timer is armed;
// the timer then runs on the monotonic clock. A deadline already passed
// (an agent that was down) is enforced at once.
//
// The task's deadline and its warning each run on a deadline.Timer: no
// goroutine waits for them. They are armed by beginMaxRun, re-armed by the
// runner's Update when the limit changed (an in-place update, on the same
// anchor), and stopped when Run returns. Their calls never take the
// watch's mu, so that the watch may stop them under it.
type maxRunWatch struct {
	tr *TaskRunner
	// kill calls fire at the task's deadline; warning calls warn when the
	// max_run_warning is due.
	kill, warning deadline.Timer

	// mu serialises arming and disarming.
	mu     sync.Mutex
	begun  bool
	closed bool

	// fired is set once the deadline has been enforced: the kill is under
	// way and no update undoes it.
	fired atomic.Bool

	// warnMu serialises sending the warning: from its timer when it is
	// due, and from the start of a run when it was due meanwhile. It is
	// never held while stopping the timers.
	warnMu sync.Mutex
}

func newMaxRunWatch(tr *TaskRunner) *maxRunWatch { return &maxRunWatch{tr: tr} }

// beginMaxRun starts the count of the task's own budget, once per runner:
// the first run's anchor is recorded (a restored task keeps the one it
// has), and the deadline armed.
func (tr *TaskRunner) beginMaxRun() {
	tr.mu.Lock()
	anchored := !tr.state.RunnerStartedAt.IsZero()
	tr.mu.Unlock()
	if !anchored {
		tr.updateState(func(ts *structs.TaskState, _ *state.TaskRunnerLocalState) {
			if ts.RunnerStartedAt.IsZero() {
				ts.RunnerStartedAt = runnerStartedAt(ts, time.Now())
			}
		})
	}
	w := tr.maxRun
	w.mu.Lock()
	defer w.mu.Unlock()
	w.begun = true
	w.applyLocked()
}

// runnerStartedAt is the anchor of a task begun at now. A task an agent
// without task limits started has no anchor of its own; its first start
// is the earliest moment known, and the fairest stand-in.
func runnerStartedAt(ts *structs.TaskState, now time.Time) time.Time {
	if !ts.StartedAt.IsZero() {
		return ts.StartedAt
	}
	return now
}

// maxRunView is the allocation as the runner holds it now, with the
// task's own state, for the deadline definition to read.
func (tr *TaskRunner) maxRunView() *structs.Allocation {
	alloc, _ := tr.snapshot()
	return tr.withOwnState(alloc)
}

// withOwnState is a shallow copy of alloc whose task states are the task's
// own, as the runner holds it now: its anchor, whether its limit killed it,
// when it was warned.
func (tr *TaskRunner) withOwnState(alloc *structs.Allocation) *structs.Allocation {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	a := *alloc
	a.TaskStates = map[string]*structs.TaskState{tr.taskName: {
		RunnerStartedAt: tr.state.RunnerStartedAt,
		MaxRunExceeded:  tr.state.MaxRunExceeded,
		MaxRunWarnedAt:  tr.state.MaxRunWarnedAt,
	}}
	if iso := tr.networkIsolation(); iso != nil && iso.Status != nil {
		a.NetworkStatus = iso.Status
	}
	return &a
}

// apply brings the armed deadline and warning in line with the task's
// definition, after an update.
func (w *maxRunWatch) apply() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.applyLocked()
}

// applyLocked arms the task's deadline and its warning, moves them when
// they moved, or disarms them when there are none. What is already due is
// done before it returns: the kill first, and then no warning, which is
// due only before the deadline. The caller holds mu.
func (w *maxRunWatch) applyLocked() {
	if !w.begun || w.closed || w.tr.IsDead() {
		return
	}
	view := w.tr.maxRunView()
	if own := view.TaskMaxRun(w.tr.taskName); own.HasDeadline() && !w.fired.Load() {
		w.tr.logger.Debug("armed task max_run_duration", "max_run_duration", own.Budget, "deadline", own.Deadline)
		w.kill.Arm(own.Deadline, w.fire)
	} else {
		w.kill.Stop()
	}
	if warning, ok := view.TaskWarning(w.tr.taskName); ok && warning.SentAt.IsZero() && !w.fired.Load() {
		w.warning.Arm(warning.At, w.warnAt)
	} else {
		w.warning.Stop()
	}
}

// close stops the watch for good: Run has returned.
func (w *maxRunWatch) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	w.kill.Stop()
	w.warning.Stop()
}

// fire enforces the deadline at, once: the task is killed for its own
// limit. The kill runs in a goroutine of its own, as it waits for the task
// to die.
func (w *maxRunWatch) fire(at time.Time) {
	if !w.fired.CompareAndSwap(false, true) {
		return
	}
	w.tr.logger.Info("task exceeded its max_run_duration, killing it", "deadline", at, "late_by", time.Since(at))
	go w.tr.kill(context.Background(), NewKillingEvent(structs.TaskTimeoutReasonMaxRunDuration), true)
}

// warnAt is warn, at the moment the warning is due.
func (w *maxRunWatch) warnAt(time.Time) { w.warn() }

// warn sends the task its max_run_warning if it is due and the task runs;
// a warning due while the task does not run is sent by runStarted. It
// never takes the watch's mu.
func (w *maxRunWatch) warn() {
	w.warnMu.Lock()
	defer w.warnMu.Unlock()
	warning, ok := w.tr.maxRunView().TaskWarning(w.tr.taskName)
	if !ok || !warning.Due(time.Now()) {
		return
	}
	if err := w.tr.sendMaxRunWarning(warning); err != nil {
		if errors.Is(err, ErrTaskNotRunning) {
			w.tr.logger.Debug("max_run_warning due while the task is not running: it goes when the task runs")
			return
		}
		w.tr.logger.Warn("failed to send max_run_warning", "signal", warning.Signal, "error", err)
	}
}

// runStarted is told that a run of the task has started, or been
// re-attached to: a warning that came due meanwhile goes now.
func (w *maxRunWatch) runStarted() {
	w.mu.Lock()
	begun := w.begun && !w.closed
	w.mu.Unlock()
	if begun {
		w.warn()
	}
}

// sendMaxRunWarning signals the running task for its max_run_warning,
// recording in the same state write the Signaling event and the sending,
// so that the warning goes once even across agent restarts: a restart
// between that write and the signal loses the warning rather than sending
// it twice.
func (tr *TaskRunner) sendMaxRunWarning(warning structs.TaskWarning) error {
	h := tr.currentHandle()
	if h == nil || tr.killed() {
		return ErrTaskNotRunning
	}
	drv, ok := tr.drivers.Lookup(h.Driver)
	if !ok {
		return fmt.Errorf("driver %q is not available on this node", h.Driver)
	}
	reason := formatLeadTime(warning.Before) + " before max_run_duration"
	tr.logger.Info("sending max_run_warning", "signal", warning.Signal, "deadline", warning.Deadline.Deadline)
	tr.updateState(func(ts *structs.TaskState, _ *state.TaskRunnerLocalState) {
		ts.MaxRunWarnedAt = time.Now()
		tr.appendEvent(signalingEvent(warning.Signal, reason))
	})
	if tr.maxRunEvents != nil {
		tr.maxRunEvents.TaskMaxRunWarned(tr.taskName)
	}
	if err := drv.SignalTask(h.Config.ID, warning.Signal); err != nil {
		if errors.Is(err, drivers.ErrTaskNotFound) {
			return nil // it ended meanwhile
		}
		return fmt.Errorf("signal task %q: %w", tr.taskName, err)
	}
	return nil
}

// formatLeadTime writes a lead time as a user would: "5m", "1h30m", "90s"
// reads "1m30s"; time.Duration's own form would say "5m0s".
func formatLeadTime(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

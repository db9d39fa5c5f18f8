package taskrunner

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/drover-io/drover/client/state"
	"github.com/drover-io/drover/structs"
)

// maxRunWatch enforces the task's own max_run_duration: at its deadline
// the task, and only it, is killed with its kill_signal and kill_timeout,
// its Killing event saying "task exceeded max_run_duration", and the
// restart policy does not bring it back.
//
// What is enforced is the allocation's structs.Allocation.TaskMaxRun for
// the task: the budget counted from the task's RunnerStartedAt, which the
// runner sets when it begins the task's first run (beginMaxRun) and
// persists, so that restarts and agent restarts do not move it. The time
// left is taken from that wall-clock anchor once, when the timer is armed;
// the timer then runs on the monotonic clock. A deadline already passed
// (an agent that was down) is enforced at once.
//
// The watch is armed by beginMaxRun, re-armed by the runner's Update when
// the limit changed (an in-place update, on the same anchor), and closed
// when Run returns. Its goroutine never takes the runner's locks while
// the watch's own lock is held by a caller waiting for it.
type maxRunWatch struct {
	tr *TaskRunner

	// mu serialises arming and disarming.
	mu     sync.Mutex
	begun  bool
	closed bool
	// armed is the deadline the goroutine enforces; stop and done are the
	// goroutine's, nil when nothing is armed.
	armed      time.Time
	stop, done chan struct{}

	// fired is set once the deadline has been enforced: the kill is under
	// way and no update undoes it.
	fired atomic.Bool
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

// taskMaxRun is the task's own budget and deadline as the runner holds
// them now: the allocation's definition, with the task's own state.
func (tr *TaskRunner) taskMaxRun() structs.MaxRun {
	tr.mu.Lock()
	a := *tr.alloc
	a.TaskStates = map[string]*structs.TaskState{tr.taskName: {
		RunnerStartedAt: tr.state.RunnerStartedAt,
		MaxRunExceeded:  tr.state.MaxRunExceeded,
	}}
	tr.mu.Unlock()
	return a.TaskMaxRun(tr.taskName)
}

// apply brings the armed deadline in line with the task's definition,
// after an update.
func (w *maxRunWatch) apply() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.applyLocked()
}

// applyLocked arms the task's deadline, re-arms it when it moved, or
// disarms it when there is none. The caller holds mu.
func (w *maxRunWatch) applyLocked() {
	if !w.begun || w.closed || w.fired.Load() {
		return
	}
	m := w.tr.taskMaxRun()
	if !m.HasDeadline() || w.tr.IsDead() {
		w.disarmLocked()
		return
	}
	if w.stop != nil && m.Deadline.Equal(w.armed) {
		return
	}
	w.disarmLocked()
	w.armLocked(m)
}

// armLocked starts watching m's deadline; one already passed is enforced
// before it returns. The caller holds mu.
func (w *maxRunWatch) armLocked(m structs.MaxRun) {
	now := time.Now()
	if m.Passed(now) {
		w.tr.logger.Info("task max_run_duration deadline already passed", "max_run_duration", m.Budget, "deadline", m.Deadline)
		w.fire(m)
		return
	}
	remaining := m.Remaining(now)
	// The timer starts here rather than in the goroutine, which a busy
	// agent may start late.
	timer := time.NewTimer(remaining)
	stop, done := make(chan struct{}), make(chan struct{})
	w.armed, w.stop, w.done = m.Deadline, stop, done
	w.tr.logger.Debug("armed task max_run_duration", "max_run_duration", m.Budget, "deadline", m.Deadline, "remaining", remaining)
	go func() {
		defer close(done)
		defer timer.Stop()
		select {
		case <-timer.C:
			w.fire(m)
		case <-stop:
		}
	}()
}

// disarmLocked stops the goroutine and waits for it to end. The caller
// holds mu.
func (w *maxRunWatch) disarmLocked() {
	if w.stop == nil {
		return
	}
	close(w.stop)
	<-w.done
	w.armed, w.stop, w.done = time.Time{}, nil, nil
}

// close stops the watch for good: Run has returned.
func (w *maxRunWatch) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	w.disarmLocked()
}

// fire enforces the deadline, once: the task is killed for its own limit.
// The kill runs in a goroutine of its own, as it waits for the task to
// die.
func (w *maxRunWatch) fire(m structs.MaxRun) {
	if !w.fired.CompareAndSwap(false, true) {
		return
	}
	w.tr.logger.Info("task exceeded its max_run_duration, killing it", "max_run_duration", m.Budget)
	go w.tr.kill(context.Background(), NewKillingEvent(structs.TaskTimeoutReasonMaxRunDuration), true)
}

package allocrunner

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/drover-io/drover/client/state"
	"github.com/drover-io/drover/internal/deadline"
	"github.com/drover-io/drover/internal/lazylog"
	"github.com/drover-io/drover/structs"
)

// deadlineRunner is the part of the alloc runner the max_run_duration hook
// acts on.
type deadlineRunner interface {
	allocKiller
	// Alloc returns the allocation with its current client status.
	Alloc() *structs.Allocation
	// recordedKillReason is the kill reason the runner's persisted state
	// records.
	recordedKillReason() state.KillReason
}

// maxRunDurationHook enforces the group's max_run_duration.
//
// What is enforced is the allocation's structs.MaxRun: the budget that
// applies and its deadline, the allocation's CreateTime plus the budget.
// The budget starts when the servers created the allocation, whatever its
// tasks did since (artifact downloads, image pulls, prestart tasks), and an
// agent restart does not reset it. A deadline that has already passed is
// enforced at once, before Prerun returns, so that no task gets to start.
// At the deadline the hook has the runner kill every task for
// state.KillReasonMaxRunDuration, which the runner records before it
// kills. An allocation without a deadline (no CreateTime, or one too far
// to be reached) is not bounded; the hook says so in the log.
//
// The deadline runs on a deadline.Timer: CreateTime, a wall-clock time,
// only anchors it, and the timer counts the time left on the monotonic
// clock. The servers never change an allocation's CreateTime; the hook
// holds to the first it sees all the same, so that no update can move the
// anchor.
//
// While armed, the hook reports the budget and the time left every
// collection interval; it stops when the allocation ends or the agent
// stops, so the series go away with the allocation.
type maxRunDurationHook struct {
	logger   hclog.Logger
	runner   deadlineRunner
	metrics  *maxRunDurationMetrics
	interval time.Duration
	// deadline calls fire at the deadline. fire never takes mu, so the
	// hook may stop it under mu.
	deadline deadline.Timer

	// mu serialises the hook's calls.
	mu    sync.Mutex
	alloc *structs.Allocation
	// createTime is the anchor the hook holds to: the first CreateTime it
	// saw, zero while it has seen none.
	createTime int64
	// started is set by Prerun; closed by Postrun, Shutdown or Destroy,
	// after which nothing arms again.
	started, closed bool
	// armedDeadline is the deadline enforced and reported (on the anchor
	// held to, it changes with the budget), and stopGauges ends the
	// reports; zero and nil when nothing is armed.
	armedDeadline time.Time
	stopGauges    func()

	// fired is set once the deadline has been enforced, here or by an
	// earlier agent: the kill is under way and no update undoes it.
	fired atomic.Bool
}

func newMaxRunDurationHook(alloc *structs.Allocation, runner deadlineRunner, m *maxRunDurationMetrics, interval time.Duration, logger hclog.Logger) *maxRunDurationHook {
	if interval <= 0 {
		interval = DefaultMetricsCollectionInterval
	}
	return &maxRunDurationHook{
		logger:     lazylog.New(logger, "max_run_duration"),
		runner:     runner,
		metrics:    m,
		interval:   interval,
		alloc:      alloc,
		createTime: alloc.CreateTime,
	}
}

func (*maxRunDurationHook) Name() string { return "max_run_duration" }

// Prerun arms the deadline, or enforces it at once if it has passed. An
// expiry an earlier agent recorded is already being enforced by the
// runner; the hook then only reports.
func (h *maxRunDurationHook) Prerun() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.started = true
	if h.closed {
		return nil
	}
	if h.runner.recordedKillReason() == state.KillReasonMaxRunDuration {
		h.fired.Store(true)
	}
	h.applyLocked()
	return nil
}

// Update re-arms the deadline when the configured duration changed, on the
// same anchor; a stopping allocation, or one without a duration, disarms.
// Once the deadline has been enforced, nothing changes.
func (h *maxRunDurationHook) Update(req *RunnerUpdateRequest) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.alloc = req.Alloc
	if h.createTime <= 0 {
		h.createTime = req.Alloc.CreateTime
	}
	if !h.started || h.closed || h.fired.Load() {
		return nil
	}
	h.applyLocked()
	return nil
}

// Postrun stops the hook: every task is dead.
func (h *maxRunDurationHook) Postrun() error {
	h.close()
	return nil
}

// Shutdown stops the hook: the agent is stopping. The next agent arms the
// same deadline again.
func (h *maxRunDurationHook) Shutdown() { h.close() }

// Destroy stops the hook: the allocation is gone.
func (h *maxRunDurationHook) Destroy() error {
	h.close()
	return nil
}

func (h *maxRunDurationHook) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	h.disarmLocked()
}

// applyLocked brings the armed deadline in line with the allocation. The
// caller holds mu.
func (h *maxRunDurationHook) applyLocked() {
	m := h.maxRunLocked()
	if !m.HasDeadline() || desiredStop(h.alloc) || h.runner.Alloc().ClientTerminalStatus() {
		if m.Budget > 0 && !m.HasDeadline() {
			h.logger.Warn("max_run_duration has no deadline to enforce: the allocation has no create time, or the deadline is beyond the year 2262",
				"max_run_duration", m.Budget, "create_time", h.createTime)
		}
		h.disarmLocked()
		return
	}
	if m.Deadline.Equal(h.armedDeadline) {
		return
	}
	h.armLocked(m)
}

// maxRunLocked is the allocation's budget and deadline, on the anchor the
// hook holds to. The caller holds mu.
func (h *maxRunDurationHook) maxRunLocked() structs.MaxRun {
	a := *h.alloc
	a.CreateTime = h.createTime
	return a.MaxRun()
}

// armLocked enforces m's deadline, moving the one armed, and reports m's
// gauges. A deadline already passed is enforced before it returns. The
// caller holds mu.
func (h *maxRunDurationHook) armLocked(m structs.MaxRun) {
	if h.stopGauges != nil {
		h.stopGauges()
	}
	h.armedDeadline = m.Deadline
	if !h.fired.Load() {
		h.logger.Debug("armed max_run_duration", "max_run_duration", m.Budget, "deadline", m.Deadline)
		h.deadline.Arm(m.Deadline, h.fire)
	}
	h.stopGauges = h.metrics.reportGauges(m, h.interval)
}

// disarmLocked stops the deadline and the gauges' reports, and waits for
// what they had under way. The caller holds mu.
func (h *maxRunDurationHook) disarmLocked() {
	h.deadline.Stop()
	if h.stopGauges != nil {
		h.stopGauges()
	}
	h.armedDeadline, h.stopGauges = time.Time{}, nil
}

// fire enforces the deadline at, once: the runner records the expiry and
// kills every task. The expiry is counted when the runner recorded it; it
// does not when every task had died already and there was nothing to kill.
func (h *maxRunDurationHook) fire(at time.Time) {
	if !h.fired.CompareAndSwap(false, true) {
		return
	}
	h.logger.Info("allocation exceeded max_run_duration, killing its tasks", "deadline", at, "late_by", time.Since(at))
	h.runner.killAll(state.KillReasonMaxRunDuration)
	if h.runner.recordedKillReason() == state.KillReasonMaxRunDuration {
		h.metrics.exceeded()
	}
}

package allocrunner

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/drover-io/drover/client/state"
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
// enforced at once. At the deadline the hook has the runner kill every
// task for state.KillReasonMaxRunDuration, which the runner records before
// it kills. An allocation without a deadline (no CreateTime, or one too
// far to be reached) is not bounded; the hook says so in the log.
//
// CreateTime, a wall-clock time, only anchors the deadline: the time left
// is taken from it once, when the timer is armed, and the timer then runs
// on the monotonic clock, so a wall-clock step does not move the firing.
// The servers never change an allocation's CreateTime; the hook holds to
// the first it sees all the same, so that no update can move the anchor.
//
// While armed, the hook reports the budget and the time left every
// collection interval; it stops when the allocation ends or the agent
// stops, so the series go away with the allocation.
type maxRunDurationHook struct {
	logger   hclog.Logger
	runner   deadlineRunner
	metrics  *maxRunDurationMetrics
	interval time.Duration

	// mu serialises the hook's calls. It is never held by the watch
	// goroutine, so a call may wait for that goroutine under it.
	mu    sync.Mutex
	alloc *structs.Allocation
	// createTime is the anchor the hook holds to: the first CreateTime it
	// saw, zero while it has seen none.
	createTime int64
	// started is set by Prerun; closed by Postrun, Shutdown or Destroy,
	// after which nothing arms again.
	started, closed bool
	// armed is the budget and deadline the watch enforces, and watch its
	// goroutine; nil when nothing is armed.
	armed structs.MaxRun
	watch *deadlineWatch

	// fired is set once the deadline has been enforced, here or by an
	// earlier agent: the kill is under way and no update undoes it.
	fired atomic.Bool
}

// deadlineWatch is the goroutine of one armed deadline: closing stop ends
// it, and done is closed when it has ended.
type deadlineWatch struct {
	stop chan struct{}
	done chan struct{}
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
	if h.watch != nil && m.Budget == h.armed.Budget && m.Deadline.Equal(h.armed.Deadline) {
		return
	}
	h.disarmLocked()
	h.armLocked(m)
}

// maxRunLocked is the allocation's budget and deadline, on the anchor the
// hook holds to. The caller holds mu.
func (h *maxRunDurationHook) maxRunLocked() structs.MaxRun {
	a := *h.alloc
	a.CreateTime = h.createTime
	return a.MaxRun()
}

// armLocked starts watching m's deadline. A deadline already past is
// enforced before it returns, so that no task gets to start. The caller
// holds mu.
func (h *maxRunDurationHook) armLocked(m structs.MaxRun) {
	now := time.Now()
	w := &deadlineWatch{stop: make(chan struct{}), done: make(chan struct{})}
	h.watch, h.armed = w, m
	// The timer starts here, not in the watch goroutine: a goroutine may
	// start many milliseconds later on a busy agent (many allocations
	// starting at once), and a timer set to remaining then would fire that
	// much after the deadline.
	var expired *time.Timer
	if m.Passed(now) {
		h.logger.Info("max_run_duration deadline already passed", "max_run_duration", m.Budget, "deadline", m.Deadline)
		h.fire(m)
	} else {
		remaining := m.Remaining(now)
		expired = time.NewTimer(remaining)
		h.logger.Debug("armed max_run_duration", "max_run_duration", m.Budget, "deadline", m.Deadline, "remaining", remaining)
	}
	go h.run(w, m, expired)
}

// disarmLocked stops the watch and waits for its goroutine to end. The
// caller holds mu.
func (h *maxRunDurationHook) disarmLocked() {
	if h.watch == nil {
		return
	}
	close(h.watch.stop)
	<-h.watch.done
	h.watch, h.armed = nil, structs.MaxRun{}
}

// run is the watch goroutine: it enforces the deadline when the timer
// fires (nil: the deadline had passed when it was armed), and reports the
// gauges every collection interval until stopped.
func (h *maxRunDurationHook) run(w *deadlineWatch, m structs.MaxRun, timer *time.Timer) {
	defer close(w.done)
	var expired <-chan time.Time
	if timer != nil {
		defer timer.Stop()
		if !h.fired.Load() {
			expired = timer.C
		}
	}
	ticker := time.NewTicker(h.interval)
	defer ticker.Stop()

	h.metrics.setGauges(m, time.Now())
	for {
		select {
		case <-w.stop:
			return
		case <-expired:
			expired = nil
			h.fire(m)
			h.metrics.setGauges(m, time.Now())
		case <-ticker.C:
			h.metrics.setGauges(m, time.Now())
		}
	}
}

// fire enforces the deadline, once: the runner records the expiry and
// kills every task. The expiry is counted when the runner recorded it; it
// does not when every task had died already and there was nothing to kill.
func (h *maxRunDurationHook) fire(m structs.MaxRun) {
	if !h.fired.CompareAndSwap(false, true) {
		return
	}
	h.logger.Info("allocation exceeded max_run_duration, killing its tasks", "max_run_duration", m.Budget)
	h.runner.killAll(state.KillReasonMaxRunDuration)
	if h.runner.recordedKillReason() == state.KillReasonMaxRunDuration {
		h.metrics.exceeded()
	}
}

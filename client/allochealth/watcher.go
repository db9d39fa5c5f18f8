package allochealth

import (
	"sync"
	"time"

	"github.com/drover-io/drover/structs"
)

// Handler is told of an allocation's client state; the Watcher is one,
// and hands what it is told to the next.
type Handler interface {
	AllocStateUpdated(alloc *structs.Allocation)
}

// Watcher sits between the alloc runners and the handler that reports
// their state to the servers, adding each allocation's deployment health
// once it is decided. It keeps one timer at most per allocation whose
// health is pending, for min_healthy_time or healthy_deadline.
type Watcher struct {
	next Handler
	now  func() time.Time

	mu      sync.Mutex
	allocs  map[string]*tracked
	stopped bool
}

// tracked is the health of one allocation in one deployment.
type tracked struct {
	deploymentID string
	// since is when the watcher first saw the allocation in the
	// deployment: healthy_deadline counts from it.
	since   time.Time
	last    *structs.Allocation
	decided *structs.AllocDeploymentStatus
	timer   *time.Timer
}

// New returns a watcher that hands every state, with its health, to next.
func New(next Handler) *Watcher {
	return &Watcher{next: next, now: time.Now, allocs: make(map[string]*tracked)}
}

// AllocStateUpdated implements Handler.
func (w *Watcher) AllocStateUpdated(alloc *structs.Allocation) {
	w.next.AllocStateUpdated(w.observe(alloc))
}

// observe records the allocation's new state and returns it with the
// health decided so far.
func (w *Watcher) observe(alloc *structs.Allocation) *structs.Allocation {
	u := strategy(alloc)
	w.mu.Lock()
	defer w.mu.Unlock()
	t := w.allocs[alloc.ID]
	if u == nil || w.stopped {
		w.forgetLocked(alloc.ID)
		return alloc
	}
	if t == nil || t.deploymentID != alloc.DeploymentID {
		w.forgetLocked(alloc.ID)
		t = &tracked{deploymentID: alloc.DeploymentID, since: w.now()}
		w.allocs[alloc.ID] = t
	}
	t.last = alloc
	w.evaluateLocked(alloc.ID, t, u)
	out := withHealth(alloc, t.decided)
	if alloc.ClientTerminalStatus() {
		w.forgetLocked(alloc.ID) // nothing more will be reported
	}
	return out
}

// strategy returns the update block that asks the client to judge the
// allocation's health, or nil when the client has nothing to decide.
func strategy(alloc *structs.Allocation) *structs.UpdateStrategy {
	if alloc.DeploymentID == "" || alloc.DeploymentStatus.HasHealth() {
		return nil
	}
	tg := alloc.LookupTaskGroup()
	if tg == nil || !tg.Update.Rolling() || tg.Update.HealthCheck == structs.UpdateHealthManual {
		return nil
	}
	return tg.Update
}

// evaluateLocked decides the health when it can, and else arms the timer
// for the moment it may next change without a new state.
func (w *Watcher) evaluateLocked(id string, t *tracked, u *structs.UpdateStrategy) {
	if t.decided != nil {
		return
	}
	now := w.now()
	healthy, healthyAt, decided := judge(t.last, u, now)
	deadline := t.since.Add(u.HealthyDeadline)
	switch {
	case decided:
	case !now.Before(deadline):
		healthy, decided = false, true
	}
	if decided {
		t.decided = &structs.AllocDeploymentStatus{Healthy: &healthy, Timestamp: now}
		if t.timer != nil {
			t.timer.Stop()
			t.timer = nil
		}
		return
	}
	next := deadline
	if !healthyAt.IsZero() && healthyAt.Before(next) {
		next = healthyAt
	}
	if t.timer != nil {
		t.timer.Stop()
	}
	t.timer = time.AfterFunc(next.Sub(now), func() { w.recheck(id, t) })
}

// recheck runs when a timer fires: the health may be decided now.
func (w *Watcher) recheck(id string, t *tracked) {
	w.mu.Lock()
	if w.stopped || w.allocs[id] != t || t.decided != nil {
		w.mu.Unlock()
		return
	}
	t.timer = nil
	w.evaluateLocked(id, t, strategy(t.last))
	if t.decided == nil {
		w.mu.Unlock()
		return
	}
	out := withHealth(t.last, t.decided)
	w.mu.Unlock()
	w.next.AllocStateUpdated(out)
}

// judge decides from the task states alone: unhealthy when the
// allocation ended or a task failed; healthy when every task that should
// run has run for min_healthy_time since its last (re)start. Otherwise
// healthyAt is when that time is up, zero while a task is not running.
func judge(alloc *structs.Allocation, u *structs.UpdateStrategy, now time.Time) (healthy bool, healthyAt time.Time, decided bool) {
	if alloc.ClientTerminalStatus() {
		return false, time.Time{}, true
	}
	tg := alloc.LookupTaskGroup()
	var latest time.Time
	for _, task := range tg.Tasks {
		st := alloc.TaskStates[task.Name]
		if st != nil && st.Failed {
			return false, time.Time{}, true
		}
		if !mustRun(task) {
			continue
		}
		if st == nil || st.State != structs.TaskStateRunning || st.StartedAt.IsZero() {
			return false, time.Time{}, false
		}
		started := st.StartedAt
		if st.LastRestart.After(started) {
			started = st.LastRestart
		}
		if started.After(latest) {
			latest = started
		}
	}
	healthyAt = latest.Add(u.MinHealthyTime)
	if !now.Before(healthyAt) {
		return true, healthyAt, true
	}
	return false, healthyAt, false
}

// mustRun reports whether a task must be running for its allocation to
// be healthy: main tasks and sidecars. Prestart and poststart tasks that
// are not sidecars run to completion, and poststop tasks run at the end.
func mustRun(task *structs.Task) bool {
	l := task.Lifecycle
	return l == nil || l.Hook == "" || (l.Sidecar && l.Hook != structs.TaskLifecycleHookPoststop)
}

// withHealth returns alloc with its deployment health, when decided.
func withHealth(alloc *structs.Allocation, decided *structs.AllocDeploymentStatus) *structs.Allocation {
	if decided == nil {
		return alloc
	}
	c := *alloc
	c.DeploymentStatus = decided.Copy()
	return &c
}

// Forget drops what the watcher keeps of an allocation (it was removed
// from the node).
func (w *Watcher) Forget(allocID string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.forgetLocked(allocID)
}

func (w *Watcher) forgetLocked(id string) {
	if t := w.allocs[id]; t != nil {
		if t.timer != nil {
			t.timer.Stop()
		}
		delete(w.allocs, id)
	}
}

// Stop stops every timer; later states are handed on as they are.
func (w *Watcher) Stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	for id := range w.allocs {
		w.forgetLocked(id)
	}
}

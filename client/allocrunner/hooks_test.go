package allocrunner

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/internal/tasktest"
	"github.com/drover-io/drover/client/state"
	"github.com/drover-io/drover/structs"
)

// recordingHook implements every runner hook kind and records each call
// with the state of the allocation's task at that moment.
type recordingHook struct {
	ar *AllocRunner

	mu    sync.Mutex
	calls []hookCall
}

type hookCall struct {
	kind      string
	taskState string
	started   bool
	alloc     *structs.Allocation
}

var (
	_ RunnerPrerunHook   = (*recordingHook)(nil)
	_ RunnerUpdateHook   = (*recordingHook)(nil)
	_ RunnerPreKillHook  = (*recordingHook)(nil)
	_ RunnerPostrunHook  = (*recordingHook)(nil)
	_ RunnerShutdownHook = (*recordingHook)(nil)
	_ RunnerDestroyHook  = (*recordingHook)(nil)
)

func (h *recordingHook) record(kind string, alloc *structs.Allocation) {
	ts := h.ar.Alloc().TaskStates["main"]
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, hookCall{kind: kind, taskState: ts.State, started: !ts.StartedAt.IsZero(), alloc: alloc})
}

func (h *recordingHook) Name() string { return "recording" }
func (h *recordingHook) Prerun() error {
	h.record("prerun", nil)
	return nil
}
func (h *recordingHook) Update(req *RunnerUpdateRequest) error {
	h.record("update", req.Alloc)
	return nil
}
func (h *recordingHook) PreKill() { h.record("prekill", nil) }
func (h *recordingHook) Postrun() error {
	h.record("postrun", nil)
	return nil
}
func (h *recordingHook) Shutdown() { h.record("shutdown", nil) }
func (h *recordingHook) Destroy() error {
	h.record("destroy", nil)
	return nil
}

func (h *recordingHook) kinds() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]string, len(h.calls))
	for i, c := range h.calls {
		out[i] = c.kind
	}
	return out
}

func (h *recordingHook) call(kind string) hookCall {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range h.calls {
		if c.kind == kind {
			return c
		}
	}
	return hookCall{}
}

// newRecordedHarness is newARHarness with a recordingHook run after the
// runner's own hooks.
func newRecordedHarness(t *testing.T, alloc *structs.Allocation) (*arHarness, *recordingHook) {
	t.Helper()
	h := newARHarness(t, alloc)
	rec := &recordingHook{ar: h.ar}
	h.ar.hooks = append(h.ar.hooks, rec)
	return h, rec
}

func TestRunnerHooks_Order(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		alloc := testAlloc(mockTask("main", map[string]any{"run_for": "1h"}))
		h, rec := newRecordedHarness(t, alloc)
		go h.ar.Run()
		synctest.Wait()

		// Prerun ran before the task started.
		must.Eq(t, []string{"prerun"}, rec.kinds())
		must.False(t, rec.call("prerun").started)
		must.Eq(t, structs.TaskStatePending, rec.call("prerun").taskState)

		next := alloc.Copy()
		next.Job.Version = 2
		h.ar.Update(next)
		must.Eq(t, uint64(2), rec.call("update").alloc.Job.Version)

		stopByServers(h.ar, next)
		<-h.ar.WaitCh()
		// PreKill ran while the task still ran; Postrun once it was dead.
		must.Eq(t, structs.TaskStateRunning, rec.call("prekill").taskState)
		must.Eq(t, structs.TaskStateDead, rec.call("postrun").taskState)

		h.ar.Destroy()
		must.Eq(t, []string{"prerun", "update", "update", "prekill", "postrun", "destroy"}, rec.kinds())
	})
}

func TestRunnerHooks_Shutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		alloc := testAlloc(mockTask("main", map[string]any{"run_for": "1h"}))
		h, rec := newRecordedHarness(t, alloc)
		go h.ar.Run()
		synctest.Wait()

		h.ar.Shutdown()
		must.Eq(t, []string{"prerun", "shutdown"}, rec.kinds())
		// The task was left running and the runner is not done.
		must.Eq(t, structs.TaskStateRunning, rec.call("shutdown").taskState)
		select {
		case <-h.ar.WaitCh():
			t.Fatal("WaitCh closed by Shutdown")
		default:
		}

		// The next agent's runner takes the task over and ends it.
		h.ar = h.newRunner(alloc)
		must.NoError(t, h.ar.Restore())
		go h.ar.Run()
		time.Sleep(time.Minute)
		must.Eq(t, 1, tasktest.CountEvents(h.taskState("main"), structs.TaskStarted))
		h.ar.Destroy()
	})
}

func TestRunnerHooks_KillBeforeRunWaitsForPrerun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		alloc := mainAndCleanup("1s")
		h, rec := newRecordedHarness(t, alloc)

		// The servers stop the allocation before it runs: the kill is
		// recorded, and waits for Run.
		stopByServers(h.ar, alloc)
		synctest.Wait()
		must.Eq(t, []string{"update"}, rec.kinds())
		rs, err := h.db.GetAllocRunnerState(alloc.ID)
		must.NoError(t, err)
		must.Eq(t, state.KillReasonStopped, rs.KillReason)

		runToEnd(h.ar)
		must.Eq(t, []string{"update", "prerun", "prekill", "postrun"}, rec.kinds())
		// Nothing ran, the poststop task included: the allocation was
		// stopped before it ever started.
		a := h.ar.Alloc()
		must.True(t, a.TaskStates["main"].StartedAt.IsZero())
		must.True(t, a.TaskStates["cleanup"].StartedAt.IsZero())
		rs, err = h.db.GetAllocRunnerState(alloc.ID)
		must.NoError(t, err)
		must.Eq(t, state.KillReasonNotRunnable, rs.KillReason)
	})
}

// slowPreKill is a hook whose PreKill takes a minute.
type slowPreKill struct{ recordingHook }

func (h *slowPreKill) PreKill() {
	h.record("prekill", nil)
	time.Sleep(time.Minute)
	h.record("prekill returned", nil)
}

func TestRunnerHooks_PostrunWaitsForPreKill(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The task ends by itself at 10s, while the stop's PreKill hook,
		// begun at 5s, takes until 65s.
		alloc := testAlloc(mockTask("main", map[string]any{"run_for": "10s"}))
		h := newARHarness(t, alloc)
		rec := &slowPreKill{recordingHook{ar: h.ar}}
		h.ar.hooks = append(h.ar.hooks, rec)
		start := time.Now()
		go h.ar.Run()
		time.Sleep(5 * time.Second)
		stopByServers(h.ar, alloc)

		time.Sleep(10 * time.Second)
		must.Eq(t, structs.TaskStateDead, h.taskState("main").State)
		must.Eq(t, []string{"prerun", "update", "prekill"}, rec.kinds())

		<-h.ar.WaitCh()
		must.Eq(t, []string{"prerun", "update", "prekill", "prekill returned", "postrun"}, rec.kinds())
		must.Eq(t, start.Add(65*time.Second), time.Now())
	})
}

// killingShutdown is a hook that asks for a kill from its Shutdown, as a
// timer firing while the agent stops would.
type killingShutdown struct{ ar *AllocRunner }

func (*killingShutdown) Name() string { return "killing shutdown" }
func (h *killingShutdown) Shutdown() {
	h.ar.killAll(state.KillReasonMaxRunDuration)
}

func TestRunnerHooks_NoPreKillOnceShutdownHooksBegin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		alloc := testAlloc(mockTask("main", map[string]any{"run_for": "1h"}))
		h := newARHarness(t, alloc)
		rec := &recordingHook{ar: h.ar}
		h.ar.hooks = append(h.ar.hooks, &killingShutdown{ar: h.ar}, rec)
		go h.ar.Run()
		synctest.Wait()

		h.ar.Shutdown()
		synctest.Wait()
		// The kill is recorded for the next agent, and not begun under the
		// Shutdown hooks.
		must.Eq(t, []string{"prerun", "shutdown"}, rec.kinds())
		rs, err := h.db.GetAllocRunnerState(alloc.ID)
		must.NoError(t, err)
		must.Eq(t, state.KillReasonMaxRunDuration, rs.KillReason)
		must.Eq(t, structs.TaskStateRunning, h.taskState("main").State)

		// The next agent's runner carries it out.
		h.ar = h.newRunner(alloc)
		must.NoError(t, h.ar.Restore())
		runToEnd(h.ar)
		mustKilledForMaxRun(t, h.taskState("main"), "main")
	})
}

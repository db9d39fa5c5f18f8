package allocrunner

import (
	"runtime"
	"testing"
	"testing/synctest"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// A running allocation of one task keeps two goroutines: the runner's Run
// loop and the task runner's. Nothing else waits for it (the state
// notifier, the wait for the task runners, the driver's exit): a client
// runs thousands of allocations, and each goroutine is a stack of its own.
func TestAllocRunner_RunningAllocKeepsTwoGoroutines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const allocs = 50
		before := runtime.NumGoroutine()
		harnesses := make([]*arHarness, allocs)
		for i := range harnesses {
			h := newARHarness(t, testAlloc(mockTask("web", map[string]any{"run_for": "1h"})))
			harnesses[i] = h
			go h.ar.Run()
		}
		synctest.Wait()
		for _, h := range harnesses {
			must.Eq(t, structs.AllocClientStatusRunning, h.ar.Alloc().ClientStatus)
			must.Eq(t, structs.AllocClientStatusRunning, h.handler.last().ClientStatus, must.Sprint("the handler was told"))
		}
		// At most: a goroutine of an earlier test, outside the bubble, may
		// end meanwhile.
		must.LessEq(t, 2*allocs, runtime.NumGoroutine()-before)

		for _, h := range harnesses {
			h.ar.Destroy()
			must.Eq(t, structs.AllocClientStatusComplete, h.handler.last().ClientStatus)
		}
		synctest.Wait()
		must.LessEq(t, before, runtime.NumGoroutine(), must.Sprint("a destroyed runner leaves no goroutine"))
	})
}

package allocrunner

import (
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

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
		must.Eq(t, 2*allocs, blockedInBubble())

		for _, h := range harnesses {
			h.ar.Destroy()
			must.Eq(t, structs.AllocClientStatusComplete, h.handler.last().ClientStatus)
		}
		synctest.Wait()
		must.Eq(t, 0, blockedInBubble(), must.Sprint("a destroyed runner leaves no goroutine"))
	})
}

// Deadlines keep no goroutine of their own: an allocation with a group
// budget, a task budget and a warning keeps one more goroutine than one
// without, the one that refreshes the group's gauges.
func TestAllocRunner_DeadlinesKeepNoGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const allocs = 20
		harnesses := make([]*arHarness, allocs)
		for i := range harnesses {
			task := mockTask("web", map[string]any{"run_for": "1h"})
			own := 50 * time.Minute
			task.MaxRunDuration = &own
			task.MaxRunWarning = &structs.MaxRunWarning{Signal: "SIGUSR1", Before: time.Minute}
			alloc := boundedAlloc(time.Now(), 40*time.Minute)
			alloc.Job.TaskGroups[0].Tasks = []*structs.Task{task}
			h := newARHarness(t, alloc)
			harnesses[i] = h
			go h.ar.Run()
		}
		synctest.Wait()
		for _, h := range harnesses {
			must.Eq(t, structs.AllocClientStatusRunning, h.ar.Alloc().ClientStatus)
		}
		must.Eq(t, 3*allocs, blockedInBubble())

		for _, h := range harnesses {
			h.ar.Destroy()
		}
		synctest.Wait()
		must.Eq(t, 0, blockedInBubble(), must.Sprint("a destroyed runner leaves no goroutine"))
	})
}

// blockedInBubble counts the runners' goroutines blocked in the synctest
// bubble. It leaves out the test harness's,
// which may or may not be parked yet when the bubble starts, and those of
// earlier tests outside the bubble, which may start (a timer's function)
// or end at any moment, as runtime.NumGoroutine would count them.
func blockedInBubble() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		header, stack, _ := strings.Cut(g, "\n")
		if strings.Contains(header, "durable), synctest bubble ") && runsRunner(stack) {
			count++
		}
	}
	return count
}

// runsRunner reports whether a goroutine's stack runs this project's code
// other than a test function: the harness's goroutines run only those.
func runsRunner(stack string) bool {
	for _, line := range strings.Split(stack, "\n") {
		if strings.Contains(line, "github.com/drover-io/drover/") && !strings.Contains(line, ".Test") {
			return true
		}
	}
	return false
}

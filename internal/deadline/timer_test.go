package deadline

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
)

// calls records each call of a timer's function: the instant it was
// armed at, and when it came.
type calls struct {
	mu        sync.Mutex
	armedAt   []time.Time
	calledAt  []time.Time
	callStack []string
}

func (c *calls) fire(at time.Time) {
	buf := make([]byte, 64<<10)
	stack := string(buf[:runtime.Stack(buf, false)])
	c.mu.Lock()
	defer c.mu.Unlock()
	c.armedAt = append(c.armedAt, at)
	c.calledAt = append(c.calledAt, time.Now())
	c.callStack = append(c.callStack, stack)
}

func (c *calls) times() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Time(nil), c.calledAt...)
}

func (c *calls) instants() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Time(nil), c.armedAt...)
}

func TestTimer_FiresOnceAtTheInstant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var c calls
		var timer Timer
		fire := c.fire
		// A wall-clock instant, as a creation time read from the state is.
		at := start.Round(0).Add(7 * time.Second)
		timer.Arm(at, fire)

		time.Sleep(7*time.Second - time.Nanosecond)
		synctest.Wait()
		must.SliceEmpty(t, c.times())

		time.Sleep(time.Nanosecond)
		synctest.Wait()
		must.Eq(t, []time.Time{start.Add(7 * time.Second)}, c.times())
		must.Eq(t, []time.Time{at}, c.instants(), must.Sprint("called with the instant it was armed at"))

		time.Sleep(time.Hour)
		must.Len(t, 1, c.times(), must.Sprint("one call per arming"))
		timer.Stop()
	})
}

// A deadline that has passed is fired before Arm returns, on the caller's
// goroutine: what it stops never gets to start.
func TestTimer_PassedInstantFiresBeforeArmReturns(t *testing.T) {
	for name, ago := range map[string]time.Duration{"now": 0, "an hour ago": time.Hour} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var c calls
				var timer Timer
				fire := c.fire
				now := time.Now()
				timer.Arm(now.Add(-ago), fire)
				must.Eq(t, []time.Time{now}, c.times())
				must.StrContains(t, c.callStack[0], "TestTimer_PassedInstantFiresBeforeArmReturns")
				must.Eq(t, 0, timerGoroutines())

				time.Sleep(time.Hour)
				must.Len(t, 1, c.times())
				timer.Stop()
			})
		})
	}
}

func TestTimer_ArmMovesAnArmedTimer(t *testing.T) {
	cases := []struct {
		name  string
		first time.Duration
		// moved is the new instant, set at 4s.
		moved time.Duration
		want  time.Duration
	}{
		{name: "later", first: 10 * time.Second, moved: 20 * time.Second, want: 20 * time.Second},
		{name: "earlier", first: 10 * time.Second, moved: 5 * time.Second, want: 5 * time.Second},
		{name: "to the same instant", first: 10 * time.Second, moved: 10 * time.Second, want: 10 * time.Second},
		{name: "to an instant passed", first: 10 * time.Second, moved: 2 * time.Second, want: 4 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				var first, second calls
				var timer Timer
				timer.Arm(start.Add(tc.first), first.fire)
				time.Sleep(4 * time.Second)
				timer.Arm(start.Add(tc.moved), second.fire)
				time.Sleep(time.Hour)
				must.SliceEmpty(t, first.times(), must.Sprint("the arming moved away fired"))
				must.Eq(t, []time.Time{start.Add(tc.want)}, second.times())
				must.Eq(t, []time.Time{start.Add(tc.moved)}, second.instants())
				timer.Stop()
			})
		})
	}
}

// Each arming fires once: a timer that fired may be armed again.
func TestTimer_ArmAfterFiringFiresAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var c calls
		var timer Timer
		fire := c.fire
		timer.Arm(start.Add(time.Second), fire)
		time.Sleep(2 * time.Second)
		timer.Arm(start.Add(3*time.Second), fire)
		time.Sleep(time.Hour)
		must.Eq(t, []time.Time{start.Add(time.Second), start.Add(3 * time.Second)}, c.times())
		timer.Stop()
	})
}

func TestTimer_StopDisarms(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var c calls
		var timer Timer
		fire := c.fire
		timer.Arm(start.Add(10*time.Second), fire)
		time.Sleep(5 * time.Second)
		timer.Stop()
		time.Sleep(time.Hour)
		must.SliceEmpty(t, c.times())

		// Stopped, it can be armed again.
		timer.Arm(time.Now().Add(time.Minute), fire)
		time.Sleep(time.Hour)
		must.Eq(t, []time.Time{start.Add(5*time.Second + time.Hour + time.Minute)}, c.times())
		timer.Stop()
		timer.Stop()
	})
}

// An armed timer keeps no goroutine: a client arms thousands.
func TestTimer_ArmedTimerKeepsNoGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var c calls
		timers := make([]Timer, 100)
		for i := range timers {
			timers[i].Arm(time.Now().Add(time.Duration(i+1)*time.Minute), c.fire)
		}
		synctest.Wait()
		must.Eq(t, 0, timerGoroutines())
		for i := range timers {
			timers[i].Stop()
		}
	})
}

// Stop returns only once the call under way has returned, and leaves no
// goroutine behind.
func TestTimer_StopWaitsForTheCallUnderWay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var returned atomic.Bool
		var timer Timer
		fire := func(time.Time) {
			<-release
			returned.Store(true)
		}
		timer.Arm(time.Now().Add(time.Second), fire)
		time.Sleep(time.Second)
		synctest.Wait()
		must.Eq(t, 1, timerGoroutines(), must.Sprint("the call is under way"))

		var stopped atomic.Bool
		stopReturnedAfterCall := make(chan bool)
		go func() {
			timer.Stop()
			stopped.Store(true)
			stopReturnedAfterCall <- returned.Load()
		}()
		synctest.Wait()
		must.False(t, stopped.Load(), must.Sprint("Stop returned while the call ran"))

		close(release)
		must.True(t, <-stopReturnedAfterCall)
		synctest.Wait()
		must.Eq(t, 0, timerGoroutines())
	})
}

// A Stop at the very instant the timer fires either lets the call finish
// before it returns or prevents it: never a call after Stop, never two.
func TestTimer_StopAtTheInstantItFires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var running, calls atomic.Int32
		var timer Timer
		fire := func(time.Time) {
			running.Add(1)
			defer running.Add(-1)
			calls.Add(1)
			time.Sleep(time.Millisecond)
		}
		for range 200 {
			before := calls.Load()
			timer.Arm(time.Now().Add(time.Second), fire)
			time.Sleep(time.Second)
			timer.Stop()
			must.Eq(t, 0, running.Load(), must.Sprint("a call ran on after Stop returned"))
			after := calls.Load()
			must.Between(t, before, after, before+1)
			time.Sleep(time.Minute)
			must.Eq(t, after, calls.Load(), must.Sprint("a call came after Stop"))
		}
		must.Eq(t, 0, timerGoroutines())
	})
}

// A timer disarmed after the time package started its goroutine, which
// then waits for the timer's lock, does not fire. The moment cannot be
// staged in a synctest bubble (a goroutine waiting for a mutex holds the
// fake clock still), so this test runs on the real clock and waits for
// the goroutine to be there.
func TestTimer_DisarmedOnceItsGoroutineStartedDoesNotFire(t *testing.T) {
	var c calls
	var timer Timer
	fire := c.fire
	timer.Arm(time.Now().Add(time.Millisecond), fire)
	timer.mu.Lock()
	waitfor.True(t, "the timer's goroutine waiting for its lock", func() bool { return timerGoroutines() == 1 })
	timer.disarmLocked()
	timer.mu.Unlock()
	timer.Stop()
	must.Eq(t, 0, timerGoroutines())
	must.SliceEmpty(t, c.times())
}

// Arm and Stop from many goroutines at once leave the timer consistent:
// after the last Stop nothing runs and nothing fires.
func TestTimer_ConcurrentArmAndStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var running, calls atomic.Int32
		var timer Timer
		fire := func(time.Time) {
			running.Add(1)
			defer running.Add(-1)
			calls.Add(1)
		}
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				for i := range 50 {
					if (g+i)%3 == 0 {
						timer.Stop()
					} else {
						timer.Arm(time.Now().Add(time.Duration(i%5)*time.Millisecond), fire)
					}
					time.Sleep(time.Duration(g+1) * time.Millisecond)
				}
			})
		}
		wg.Wait()
		timer.Stop()
		must.Eq(t, 0, running.Load())
		fired := calls.Load()
		must.Positive(t, fired)
		time.Sleep(time.Hour)
		must.Eq(t, fired, calls.Load())
		must.Eq(t, 0, timerGoroutines())
	})
}

// timerGoroutines counts the goroutines running a Timer's call, the
// caller's left out.
func timerGoroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	goroutines := strings.Split(string(buf), "\n\n")
	count := 0
	for _, g := range goroutines[1:] { // the first is the caller's
		if strings.Contains(g, "internal/deadline.(*Timer)") {
			count++
		}
	}
	return count
}

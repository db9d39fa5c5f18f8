package deadline

import (
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
)

// call is one call of a timer's function.
type call struct {
	// armedAt is the instant it was called with; when, the time it came.
	armedAt, when time.Time
	// onTestGoroutine is set when it ran on the test's own goroutine.
	onTestGoroutine bool
}

// recorder is a timer's function that records its calls.
type recorder struct {
	mu    sync.Mutex
	calls []call
}

func (r *recorder) fire(at time.Time) {
	c := call{armedAt: at, when: time.Now(), onTestGoroutine: strings.Contains(currentStack(), "deadline.TestTimer")}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, c)
}

// whens is when each call came.
func (r *recorder) whens() []time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]time.Time, len(r.calls))
	for i, c := range r.calls {
		out[i] = c.when
	}
	return out
}

func (r *recorder) only(t *testing.T) call {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	must.Len(t, 1, r.calls)
	return r.calls[0]
}

// counter is a timer's function that counts its calls, and those under
// way, each taking sleep.
type counter struct {
	running, calls atomic.Int32
	sleep          time.Duration
}

func (c *counter) fire(time.Time) {
	c.running.Add(1)
	defer c.running.Add(-1)
	c.calls.Add(1)
	time.Sleep(c.sleep)
}

func TestTimer_FiresOnceAtTheInstant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var r recorder
		var timer Timer
		// A wall-clock instant, as a creation time read from the state is.
		at := time.Now().Round(0).Add(7 * time.Second)
		timer.Arm(at, r.fire)
		time.Sleep(time.Hour)
		c := r.only(t)
		must.Eq(t, at, c.when, must.Sprint("called at the instant"))
		must.Eq(t, at, c.armedAt, must.Sprint("called with the instant"))
		must.False(t, c.onTestGoroutine)
		timer.Stop()
	})
}

// A deadline that has passed is fired before Arm returns, on the caller's
// goroutine: what it stops never gets to start.
func TestTimer_PassedInstantFiresBeforeArmReturns(t *testing.T) {
	for name, ago := range map[string]time.Duration{"now": 0, "an hour ago": time.Hour} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var r recorder
				var timer Timer
				now := time.Now()
				timer.Arm(now.Add(-ago), r.fire)
				c := r.only(t)
				must.True(t, c.onTestGoroutine)
				must.Eq(t, now, c.when)
				must.Eq(t, 0, timerGoroutines())
				time.Sleep(time.Hour)
				r.only(t)
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
				var first, second recorder
				var timer Timer
				timer.Arm(start.Add(tc.first), first.fire)
				time.Sleep(4 * time.Second)
				timer.Arm(start.Add(tc.moved), second.fire)
				time.Sleep(time.Hour)
				must.SliceEmpty(t, first.whens(), must.Sprint("the arming moved away fired"))
				c := second.only(t)
				must.Eq(t, start.Add(tc.want), c.when)
				must.Eq(t, start.Add(tc.moved), c.armedAt)
				timer.Stop()
			})
		})
	}
}

// Each arming fires once, and a timer fired or stopped may be armed again.
func TestTimer_StopDisarmsAndEachArmingFiresOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var r recorder
		var timer Timer
		timer.Arm(start.Add(time.Second), r.fire)
		time.Sleep(2 * time.Second)
		timer.Arm(start.Add(3*time.Second), r.fire)
		time.Sleep(2 * time.Second)
		timer.Arm(start.Add(time.Minute), r.fire)
		timer.Stop()
		time.Sleep(time.Hour)
		timer.Arm(time.Now().Add(time.Minute), r.fire)
		time.Sleep(time.Hour)
		timer.Stop()
		timer.Stop()
		must.Eq(t, []time.Time{
			start.Add(time.Second),
			start.Add(3 * time.Second),
			start.Add(4*time.Second + time.Hour + time.Minute),
		}, r.whens())
	})
}

// An armed timer keeps no goroutine: a client arms thousands.
func TestTimer_ArmedTimerKeepsNoGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var r recorder
		timers := make([]Timer, 100)
		for i := range timers {
			timers[i].Arm(time.Now().Add(time.Duration(i+1)*time.Minute), r.fire)
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
		timer.Arm(time.Now().Add(time.Second), func(time.Time) {
			<-release
			returned.Store(true)
		})
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
		c := counter{sleep: time.Millisecond}
		var timer Timer
		for range 200 {
			before := c.calls.Load()
			timer.Arm(time.Now().Add(time.Second), c.fire)
			time.Sleep(time.Second)
			timer.Stop()
			must.Eq(t, 0, c.running.Load(), must.Sprint("a call ran on after Stop returned"))
			after := c.calls.Load()
			must.Between(t, before, after, before+1)
			time.Sleep(time.Minute)
			must.Eq(t, after, c.calls.Load(), must.Sprint("a call came after Stop"))
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
	var r recorder
	var timer Timer
	timer.Arm(time.Now().Add(time.Millisecond), r.fire)
	timer.mu.Lock()
	waitfor.True(t, "the timer's goroutine waiting for its lock", func() bool { return timerGoroutines() == 1 })
	timer.disarmLocked()
	timer.mu.Unlock()
	timer.Stop()
	must.Eq(t, 0, timerGoroutines())
	must.SliceEmpty(t, r.whens())
}

// Arm and Stop from many goroutines at once leave the timer consistent:
// after the last Stop nothing runs and nothing fires.
func TestTimer_ConcurrentArmAndStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var c counter
		var timer Timer
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				for i := range 50 {
					if (g+i)%3 == 0 {
						timer.Stop()
					} else {
						timer.Arm(time.Now().Add(time.Duration(i%5)*time.Millisecond), c.fire)
					}
					time.Sleep(time.Duration(g+1) * time.Millisecond)
				}
			})
		}
		wg.Wait()
		timer.Stop()
		must.Eq(t, 0, c.running.Load())
		fired := c.calls.Load()
		must.Positive(t, fired)
		time.Sleep(time.Hour)
		must.Eq(t, fired, c.calls.Load())
		must.Eq(t, 0, timerGoroutines())
	})
}

// timerGoroutines counts the goroutines in a Timer's code, the caller's
// left out.
func timerGoroutines() int {
	var dump strings.Builder
	// debug=2 is runtime.Stack's format, the caller's goroutine first.
	if err := pprof.Lookup("goroutine").WriteTo(&dump, 2); err != nil {
		panic(err)
	}
	count := 0
	for _, g := range strings.Split(dump.String(), "\n\n")[1:] {
		if strings.Contains(g, "internal/deadline.(*Timer)") {
			count++
		}
	}
	return count
}

// currentStack is the calling goroutine's stack.
func currentStack() string {
	buf := make([]byte, 64<<10)
	return string(buf[:runtime.Stack(buf, false)])
}

package deadline

import (
	"sync"
	"time"
)

// Timer calls a function once when the instant it is armed at comes.
//
// The zero Timer is disarmed and ready to use; it must not be copied once
// used. While armed it holds a runtime timer and no goroutine: the call
// runs on a goroutine of its own, which the time package starts at the
// instant. A client holds one per allocation and per task, by the
// thousand, and most are never armed.
//
// Its methods may be called from any goroutine. The function called must
// not call Stop, which would wait for the call it is in.
type Timer struct {
	mu sync.Mutex
	// pending is the arming whose call has not begun; nil when none is.
	pending *arming
	// flights are the armings whose goroutine the time package may have
	// started: Stop waits for each to return.
	flights []*arming
}

// arming is one instant the timer was armed at.
type arming struct {
	at    time.Time
	fire  func(at time.Time)
	timer *time.Timer
	// done is closed when the arming's goroutine has returned, or when
	// the arming was disarmed before the time package started one.
	done chan struct{}
}

// Arm arms the timer at at: fire is called once, at that instant, with
// at. A timer armed already is moved to at, and calls only this fire,
// only there.
//
// An instant that has come (at is now or earlier) is fired on the
// caller's goroutine before Arm returns: what the deadline stops never
// starts. The call is then the caller's to wait for, not Stop's.
func (t *Timer) Arm(at time.Time, fire func(at time.Time)) {
	t.mu.Lock()
	t.disarmLocked()
	// The time left is taken once, here: from then on the runtime timer
	// counts it on the monotonic clock.
	left := time.Until(at)
	if left <= 0 {
		t.mu.Unlock()
		fire(at)
		return
	}
	a := &arming{at: at, fire: fire, done: make(chan struct{})}
	a.timer = time.AfterFunc(left, func() { t.run(a) })
	t.pending = a
	t.flights = append(t.inFlightLocked(), a)
	t.mu.Unlock()
}

// Stop disarms the timer. It returns once no call is under way (but one
// Arm makes on the caller's goroutine) and none is to come: every
// goroutine the timer had has returned. The timer may be armed again.
func (t *Timer) Stop() {
	t.mu.Lock()
	t.disarmLocked()
	flights := t.flights
	t.flights = nil
	t.mu.Unlock()
	for _, a := range flights {
		<-a.done
	}
}

// run is the goroutine of arming a, at its instant: it fires unless a
// was disarmed meanwhile.
func (t *Timer) run(a *arming) {
	defer close(a.done)
	t.mu.Lock()
	due := t.pending == a
	if due {
		t.pending = nil
	}
	t.mu.Unlock()
	if due {
		a.fire(a.at)
	}
}

// disarmLocked disarms the pending arming, if any. Its goroutine, if the
// time package has started it already, finds it disarmed and returns
// without firing. The caller holds mu.
func (t *Timer) disarmLocked() {
	a := t.pending
	if a == nil {
		return
	}
	t.pending = nil
	if a.timer.Stop() {
		close(a.done) // no goroutine was started, and none will be
	}
}

// inFlightLocked is flights less the armings that are done. The caller
// holds mu.
func (t *Timer) inFlightLocked() []*arming {
	kept := t.flights[:0]
	for _, a := range t.flights {
		select {
		case <-a.done:
		default:
			kept = append(kept, a)
		}
	}
	return kept
}

package pendingtimeout

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shoenig/test/must"
)

// fired records when each key fired, on the fake clock.
type fired struct {
	mu sync.Mutex
	at map[string][]time.Time
}

func (f *fired) fire(key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.at[key] = append(f.at[key], time.Now())
}

func (f *fired) get(key string) []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Time(nil), f.at[key]...)
}

func newTimers() (*Timers, *fired) {
	f := &fired{at: map[string][]time.Time{}}
	t := New(f.fire)
	t.SetEnabled(true)
	return t, f
}

// TestTimers_firesAtTheInstant: each key fires once, exactly at its
// instant and not a nanosecond before.
func TestTimers_firesAtTheInstant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		timers, f := newTimers()
		start := time.Now()
		timers.Set("a", start.Add(2*time.Second))
		timers.Set("b", start.Add(time.Second))
		must.Eq(t, 2, timers.Len())

		time.Sleep(time.Second - time.Nanosecond)
		synctest.Wait()
		must.SliceEmpty(t, f.get("b"), must.Sprint("not a nanosecond early"))

		time.Sleep(time.Nanosecond)
		synctest.Wait()
		must.Eq(t, []time.Time{start.Add(time.Second)}, f.get("b"))
		must.SliceEmpty(t, f.get("a"))

		time.Sleep(time.Second)
		synctest.Wait()
		must.Eq(t, []time.Time{start.Add(2 * time.Second)}, f.get("a"))
		must.Eq(t, 0, timers.Len())

		time.Sleep(time.Hour)
		synctest.Wait()
		must.Len(t, 1, f.get("a"), must.Sprint("once per Set"))
	})
}

// TestTimers_setAgainStopPast: setting another instant replaces the
// timer, the same one keeps it, Stop disarms, and a past instant fires
// at once.
func TestTimers_setAgainStopPast(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		timers, f := newTimers()
		start := time.Now()

		timers.Set("moved", start.Add(time.Second))
		timers.Set("moved", start.Add(3*time.Second))
		timers.Set("stopped", start.Add(time.Second))
		timers.Stop("stopped")
		timers.Set("past", start.Add(-time.Minute))
		synctest.Wait()
		must.Eq(t, []time.Time{start}, f.get("past"), must.Sprint("a passed deadline fires at once"))

		time.Sleep(2 * time.Second)
		timers.Set("moved", start.Add(3*time.Second)) // the same instant: kept
		at, ok := timers.Deadline("moved")
		must.True(t, ok)
		must.Eq(t, start.Add(3*time.Second), at)
		time.Sleep(time.Second)
		synctest.Wait()
		must.Eq(t, []time.Time{start.Add(3 * time.Second)}, f.get("moved"))
		must.SliceEmpty(t, f.get("stopped"))
	})
}

// TestTimers_disabled: disabled timers arm nothing, and disabling stops
// what was armed, as when leadership is lost.
func TestTimers_disabled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fired{at: map[string][]time.Time{}}
		timers := New(f.fire)
		timers.Set("a", time.Now().Add(time.Second))
		must.Eq(t, 0, timers.Len())

		timers.SetEnabled(true)
		timers.Set("a", time.Now().Add(time.Second))
		timers.SetEnabled(false)
		time.Sleep(time.Minute)
		synctest.Wait()
		must.SliceEmpty(t, f.get("a"))

		timers.SetEnabled(true)
		timers.Set("a", time.Now().Add(time.Second))
		time.Sleep(time.Second)
		synctest.Wait()
		must.Len(t, 1, f.get("a"))
	})
}

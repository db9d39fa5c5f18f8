package pendingtimeout

import (
	"sync"
	"time"
)

// Timers calls fire with a key once the instant set for it is reached,
// at most once per Set. It is safe for concurrent use. While disabled
// (the zero state, and after SetEnabled(false)) it holds no timer.
type Timers struct {
	fire func(key string)

	mu      sync.Mutex
	enabled bool
	timers  map[string]*entry
}

// entry is one armed timer; at is its instant, for Deadline.
type entry struct {
	at    time.Time
	timer *time.Timer
}

// New returns disabled timers that call fire, on a goroutine of their
// own, when a key's instant is reached.
func New(fire func(key string)) *Timers {
	return &Timers{fire: fire, timers: map[string]*entry{}}
}

// SetEnabled turns the timers on or off; either way every armed timer
// is stopped and forgotten, as on a change of leader.
func (t *Timers) SetEnabled(enabled bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.enabled = enabled
	for key, e := range t.timers {
		e.timer.Stop()
		delete(t.timers, key)
	}
}

// Set arms key's timer at, replacing the one it had. An instant in the
// past fires at once. Setting the instant a key already has changes
// nothing, so that the same evaluation seen again keeps its timer.
func (t *Timers) Set(key string, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.enabled {
		return
	}
	if old := t.timers[key]; old != nil {
		if old.at.Equal(at) {
			return
		}
		old.timer.Stop()
	}
	e := &entry{at: at}
	e.timer = time.AfterFunc(time.Until(at), func() { t.expire(key, e) })
	t.timers[key] = e
}

// Stop disarms key's timer, if it has one.
func (t *Timers) Stop(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.timers[key]; e != nil {
		e.timer.Stop()
		delete(t.timers, key)
	}
}

// Deadline is the instant key's timer is armed at; false when it has none.
func (t *Timers) Deadline(key string) (time.Time, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.timers[key]
	if e == nil {
		return time.Time{}, false
	}
	return e.at, true
}

// Len is the number of armed timers.
func (t *Timers) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.timers)
}

// expire fires key, unless its timer was replaced or stopped meanwhile
// (a timer that already began to run cannot be stopped).
func (t *Timers) expire(key string, e *entry) {
	t.mu.Lock()
	current := t.enabled && t.timers[key] == e
	if current {
		delete(t.timers, key)
	}
	t.mu.Unlock()
	if current {
		t.fire(key)
	}
}

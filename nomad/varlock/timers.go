package varlock

import (
	"sync"
	"time"
)

// Key names a locked variable.
type Key struct {
	Namespace string
	Path      string
}

// Timers holds one timer per lock held. It is safe for concurrent use.
type Timers struct {
	expire func(Key, string)

	mu      sync.Mutex
	enabled bool
	locks   map[Key]*lockTimer
}

// lockTimer is the timer of one lock: first its TTL, then, once the TTL
// ran out, its delay.
type lockTimer struct {
	id      string
	ttl     time.Duration
	delay   time.Duration
	timer   *time.Timer
	expired bool
}

// New returns disabled timers that call expire with a variable and its
// lock ID once the lock is lost and its delay has passed.
func New(expire func(k Key, lockID string)) *Timers {
	return &Timers{expire: expire, locks: map[Key]*lockTimer{}}
}

// SetEnabled turns the timers on (this server leads) or off; off stops
// and forgets every timer.
func (t *Timers) SetEnabled(on bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.enabled = on
	if !on {
		for k, l := range t.locks {
			l.timer.Stop()
			delete(t.locks, k)
		}
	}
}

// Arm starts the TTL of the lock lockID on k, replacing any timer k had.
// It does nothing while the timers are disabled.
func (t *Timers) Arm(k Key, lockID string, ttl, delay time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.enabled {
		return
	}
	if old, ok := t.locks[k]; ok {
		old.timer.Stop()
	}
	l := &lockTimer{id: lockID, ttl: ttl, delay: delay}
	l.timer = time.AfterFunc(ttl, func() { t.ttlEnded(k, l) })
	t.locks[k] = l
}

// Renew starts the TTL of lock lockID on k afresh. It reports false when
// that lock has no timer or its TTL already ran out: the lock is lost.
func (t *Timers) Renew(k Key, lockID string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	l, ok := t.locks[k]
	if !ok || l.id != lockID || l.expired {
		return false
	}
	l.timer.Reset(l.ttl)
	return true
}

// Disarm forgets the timer of k's lock, released.
func (t *Timers) Disarm(k Key) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if l, ok := t.locks[k]; ok {
		l.timer.Stop()
		delete(t.locks, k)
	}
}

// ttlEnded starts the delay of a lock whose TTL ran out.
func (t *Timers) ttlEnded(k Key, l *lockTimer) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.locks[k] != l || l.expired {
		return
	}
	l.expired = true
	l.timer = time.AfterFunc(l.delay, func() { t.delayEnded(k, l) })
}

// delayEnded forgets a lost lock and has it released.
func (t *Timers) delayEnded(k Key, l *lockTimer) {
	t.mu.Lock()
	if t.locks[k] != l {
		t.mu.Unlock()
		return
	}
	delete(t.locks, k)
	t.mu.Unlock()
	t.expire(k, l.id)
}

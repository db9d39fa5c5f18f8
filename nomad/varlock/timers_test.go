package varlock

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shoenig/test/must"
)

// expiries records what the timers had released.
type expiries struct {
	mu  sync.Mutex
	ids []string
}

func (e *expiries) expire(_ Key, id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ids = append(e.ids, id)
}

func (e *expiries) got() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.ids...)
}

var k = Key{Namespace: "default", Path: "a/b"}

func TestTimers_lostLockExpiresAfterTTLAndDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var e expiries
		timers := New(e.expire)
		timers.SetEnabled(true)
		timers.Arm(k, "lock-1", 10*time.Second, 15*time.Second)

		time.Sleep(24 * time.Second)
		synctest.Wait()
		must.SliceEmpty(t, e.got(), must.Sprint("released before TTL plus delay"))
		must.False(t, timers.Renew(k, "lock-1"), must.Sprint("a lock past its TTL renewed"))

		time.Sleep(2 * time.Second)
		synctest.Wait()
		must.Eq(t, []string{"lock-1"}, e.got())
	})
}

func TestTimers_renewKeepsTheLock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var e expiries
		timers := New(e.expire)
		timers.SetEnabled(true)
		timers.Arm(k, "lock-1", 10*time.Second, 10*time.Second)
		for range 5 {
			time.Sleep(8 * time.Second)
			must.True(t, timers.Renew(k, "lock-1"))
		}
		must.False(t, timers.Renew(k, "other"), must.Sprint("renewed with another lock's ID"))
		synctest.Wait()
		must.SliceEmpty(t, e.got())
		time.Sleep(21 * time.Second)
		synctest.Wait()
		must.Eq(t, []string{"lock-1"}, e.got())
	})
}

func TestTimers_disarmAndDisable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var e expiries
		timers := New(e.expire)
		timers.Arm(k, "ignored", 10*time.Second, 10*time.Second) // disabled: not a leader
		timers.SetEnabled(true)
		timers.Arm(k, "lock-1", 10*time.Second, 10*time.Second)
		timers.Disarm(k)
		other := Key{Namespace: "default", Path: "c"}
		timers.Arm(other, "lock-2", 10*time.Second, 10*time.Second)
		timers.SetEnabled(false)
		time.Sleep(time.Minute)
		synctest.Wait()
		must.SliceEmpty(t, e.got())
		must.False(t, timers.Renew(other, "lock-2"))
	})
}

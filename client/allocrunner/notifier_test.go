package allocrunner

import (
	"runtime"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// gatedHandler is an AllocStateHandler whose calls block until let through.
type gatedHandler struct {
	gate chan struct{}
	mu   sync.Mutex
	got  []string
}

func (g *gatedHandler) AllocStateUpdated(a *structs.Allocation) {
	<-g.gate
	g.mu.Lock()
	defer g.mu.Unlock()
	g.got = append(g.got, a.ClientDescription)
}

func (g *gatedHandler) sent() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.got...)
}

// notifierState is a client state for a stateNotifier to read.
type notifierState struct {
	mu   sync.Mutex
	desc string
}

func (s *notifierState) set(desc string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.desc = desc
}

func (s *notifierState) alloc() *structs.Allocation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &structs.Allocation{ID: "a", ClientStatus: structs.AllocClientStatusRunning, ClientDescription: s.desc}
}

func TestStateNotifier(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &gatedHandler{gate: make(chan struct{})}
		var st notifierState
		n := newStateNotifier(h, st.alloc)
		before := runtime.NumGoroutine()

		st.set("one")
		n.notify()
		synctest.Wait()
		// The handler is stuck; the runner's notifications still return at
		// once and fold into one.
		for _, d := range []string{"two", "three", "four"} {
			st.set(d)
			n.notify()
		}
		must.LessEq(t, before+1, runtime.NumGoroutine(), must.Sprint("one sender, however many notifications"))
		close(h.gate)
		synctest.Wait()
		must.Eq(t, []string{"one", "four"}, h.sent())
		must.LessEq(t, before, runtime.NumGoroutine(), must.Sprint("no goroutine once every change is sent"))
		n.mu.Lock()
		must.False(t, n.sending, must.Sprint("no sender once every change is sent"))
		n.mu.Unlock()

		// The state sent last is not sent again.
		n.notify()
		synctest.Wait()
		must.Eq(t, []string{"one", "four"}, h.sent())

		st.set("five")
		n.stop()
		must.Eq(t, []string{"one", "four", "five"}, h.sent(), must.Sprint("stop sends the final state"))
		st.set("six")
		n.notify()
		synctest.Wait()
		must.Eq(t, []string{"one", "four", "five"}, h.sent(), must.Sprint("nothing is sent after stop"))
	})
}

// stop waits out a send under way before it sends the final state: the
// handler's calls come one at a time.
func TestStateNotifier_StopWaitsForTheSendUnderWay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &gatedHandler{gate: make(chan struct{})}
		var st notifierState
		n := newStateNotifier(h, st.alloc)
		st.set("running")
		n.notify()
		synctest.Wait()

		stopped := make(chan struct{})
		go func() {
			defer close(stopped)
			st.set("complete")
			n.stop()
		}()
		synctest.Wait()
		select {
		case <-stopped:
			t.Fatal("stop returned while a send was under way")
		default:
		}
		close(h.gate)
		<-stopped
		must.Eq(t, []string{"running", "complete"}, h.sent())
	})
}

func TestStateNotifier_NoHandler(t *testing.T) {
	n := newStateNotifier(nil, func() *structs.Allocation { t.Fatal("state read without a handler"); return nil })
	n.notify()
	n.stop()
}

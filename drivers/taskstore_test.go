package drivers

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

func TestTaskStore(t *testing.T) {
	var s TaskStore[*int]
	a, b := new(int), new(int)

	_, err := s.Get("a")
	must.ErrorIs(t, err, ErrTaskNotFound)
	must.False(t, s.Has("a"))

	must.NoError(t, s.Add("a", a))
	must.ErrorContains(t, s.Add("a", b), `task "a" already exists`)
	got, err := s.Get("a")
	must.NoError(t, err)
	must.Eq(t, a, got)

	// Removing another task under the same ID leaves the tracked one.
	s.Remove("a", b)
	must.True(t, s.Has("a"))
	s.Remove("a", a)
	must.False(t, s.Has("a"))

	must.NoError(t, s.Add("a", a))
	must.NoError(t, s.Add("b", b))
	must.SliceContainsAll(t, []*int{a, b}, s.All())
	s.Clear()
	must.False(t, s.Has("b"))
}

// namedTask reports its name as its status's ID.
type namedTask struct{ name string }

func (n *namedTask) Status() *TaskStatus { return &TaskStatus{ID: n.name} }

func TestStatusOf(t *testing.T) {
	var s TaskStore[*namedTask]
	_, err := StatusOf(&s, "a")
	must.ErrorIs(t, err, ErrTaskNotFound)

	must.NoError(t, s.Add("a", &namedTask{name: "a"}))
	st, err := StatusOf(&s, "a")
	must.NoError(t, err)
	must.Eq(t, "a", st.ID)
}

func TestWaitExit(t *testing.T) {
	done := make(chan struct{})
	want := &ExitResult{ExitCode: 3}
	ch := WaitExit(context.Background(), done, func() *ExitResult { return want })
	close(done)
	must.Eq(t, want, <-ch)
	_, open := <-ch
	must.False(t, open)

	ctx, cancel := context.WithCancel(context.Background())
	ch = WaitExit(ctx, make(chan struct{}), func() *ExitResult { return want })
	cancel()
	res, open := <-ch
	must.Nil(t, res)
	must.False(t, open)
}

func TestStopSignal(t *testing.T) {
	sig, err := StopSignal("")
	must.NoError(t, err)
	must.Eq(t, syscall.SIGINT, sig)
	sig, err = StopSignal("SIGTERM")
	must.NoError(t, err)
	must.Eq(t, syscall.SIGTERM, sig)
	_, err = StopSignal("NOPE")
	must.ErrorContains(t, err, `unknown signal "NOPE"`)
}

func TestClosed(t *testing.T) {
	ch := make(chan struct{})
	must.False(t, Closed(ch))
	must.False(t, WaitClosed(ch, time.Millisecond))
	close(ch)
	must.True(t, Closed(ch))
	must.True(t, WaitClosed(ch, time.Hour))
}

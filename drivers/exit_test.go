package drivers

import (
	"context"
	"runtime"
	"testing"
	"testing/synctest"

	"github.com/shoenig/test/must"
)

func TestExit_WaitersGetTheResult(t *testing.T) {
	var e Exit
	must.Nil(t, e.Result())
	first, second := e.Wait(context.Background()), e.Wait(context.Background())
	select {
	case <-first:
		t.Fatal("a waiter got a result before the exit")
	default:
	}

	res := &ExitResult{ExitCode: 3}
	must.True(t, e.Set(res))
	must.False(t, e.Set(&ExitResult{ExitCode: 4}), must.Sprint("only the first result counts"))
	must.Eq(t, res, e.Result())
	for _, ch := range []<-chan *ExitResult{first, second} {
		got, ok := <-ch
		must.True(t, ok)
		must.Eq(t, res, got)
		_, ok = <-ch
		must.False(t, ok, must.Sprint("the channel yields one result, then is closed"))
	}

	late, ok := <-e.Wait(context.Background())
	must.True(t, ok, must.Sprint("a wait after the exit yields the result at once"))
	must.Eq(t, res, late)
}

func TestExit_CancelledWaiterIsClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var e Exit
		ctx, cancel := context.WithCancel(context.Background())
		cancelled := e.Wait(ctx)
		kept := e.Wait(context.Background())
		cancel()
		synctest.Wait()
		_, ok := <-cancelled
		must.False(t, ok, must.Sprint("a waiter whose context ended is closed without a result"))
		must.SliceLen(t, 1, e.waiters, must.Sprint("a waiter whose context ended is let go"))

		res := &ExitResult{ExitCode: 1}
		must.True(t, e.Set(res))
		got := <-kept
		must.Eq(t, res, got)

		_, ok = <-e.Wait(ctx)
		must.True(t, ok, must.Sprint("once exited, the result wins over an ended context"))
	})
}

// A waiter costs no goroutine: a client has one parked per running task.
func TestExit_WaitersKeepNoGoroutine(t *testing.T) {
	const waiters = 1000
	var e Exit
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	before := runtime.NumGoroutine()
	chans := make([]<-chan *ExitResult, waiters)
	for i := range chans {
		chans[i] = e.Wait(ctx)
	}
	must.Less(t, before+waiters/10, runtime.NumGoroutine())
	e.Set(&ExitResult{})
	for _, ch := range chans {
		<-ch
	}
	must.SliceEmpty(t, e.waiters, must.Sprint("the exit lets go of its waiters"))
}

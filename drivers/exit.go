package drivers

import (
	"context"
	"slices"
	"sync"
)

// Exit is the exit of one task run, for a driver's WaitTask: any number of
// waiters get the result once it is set, and a waiter whose context ends
// first gets its channel closed. Unlike WaitExit it keeps no goroutine per
// waiter, which matters on a client running thousands of tasks that each
// have a waiter parked for hours. The zero Exit is a run still going.
type Exit struct {
	mu     sync.Mutex
	result *ExitResult
	// waiters are the channels waiting, with the stop function of the
	// context.AfterFunc that closes each when its context ends. There is
	// usually one: a slice is a fraction of a map's size.
	waiters []exitWaiter
}

type exitWaiter struct {
	ch   chan *ExitResult
	stop func() bool
}

// Wait returns a channel that yields the result once it is set, at once
// if it is already, or is closed without a value when ctx ends first.
func (e *Exit) Wait(ctx context.Context) <-chan *ExitResult {
	ch := make(chan *ExitResult, 1)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.result != nil {
		ch <- e.result
		close(ch)
		return ch
	}
	// The AfterFunc runs on a goroutine of its own, only once ctx ends,
	// and takes the lock we hold: it cannot act before ch is registered.
	e.waiters = append(e.waiters, exitWaiter{ch: ch, stop: context.AfterFunc(ctx, func() { e.abandon(ch) })})
	return ch
}

// abandon closes a waiter's channel whose context ended before the exit.
func (e *Exit) abandon(ch chan *ExitResult) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, w := range e.waiters {
		if w.ch == ch {
			e.waiters = slices.Delete(e.waiters, i, i+1)
			close(ch)
			return
		}
	}
}

// Set records the result and hands it to every waiter. Only the first
// call counts; it reports whether this one did.
func (e *Exit) Set(result *ExitResult) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.result != nil || result == nil {
		return false
	}
	e.result = result
	for _, w := range e.waiters {
		w.stop()
		w.ch <- result
		close(w.ch)
	}
	e.waiters = nil
	return true
}

// Result is the result, or nil while the run goes on.
func (e *Exit) Result() *ExitResult {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.result
}

// Package waitfor is how tests here wait, in real time, for a condition
// that something else makes true: a leader elected, an allocation placed,
// a process gone. It is github.com/shoenig/test/wait with the bounds this
// project's tests share, so that no test sleeps and then asserts and no
// package grows a polling loop of its own. Timer logic needs no waiting at
// all: it is tested with testing/synctest. It is imported by tests only.
package waitfor

import (
	"time"

	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"
)

const (
	// Timeout bounds a wait unless the caller passes wait.Timeout. It is
	// generous: a loaded 2-core machine running several test binaries
	// can take seconds to schedule what an idle one does at once.
	Timeout = 30 * time.Second

	// Gap is the pause between two tries unless the caller passes
	// wait.Gap.
	Gap = 10 * time.Millisecond
)

// True waits until cond returns true and fails t, naming what it waited
// for, if the timeout passes first. opts (wait.Timeout, wait.Gap) override
// the defaults.
func True(t must.T, what string, cond func() bool, opts ...wait.Option) {
	t.Helper()
	run(t, what, wait.BoolFunc(cond), opts)
}

// NoError waits until cond returns nil and fails t, naming what it waited
// for and the last error cond returned, if the timeout passes first. cond
// may itself fail t to give up early (the process it waits on has exited).
func NoError(t must.T, what string, cond func() error, opts ...wait.Option) {
	t.Helper()
	run(t, what, wait.ErrorFunc(cond), opts)
}

// Always checks cond every Gap for the whole window and fails t, naming
// what should have held, the first time it does not. It is for what must
// not happen (an evaluation left alone, a launch skipped); where the code
// leaves a trace of having decided (a log line, a counter), waiting for
// that trace with True is the stronger test.
func Always(t must.T, what string, window time.Duration, cond func() bool) {
	t.Helper()
	must.Wait(t, wait.ContinualSuccess(wait.BoolFunc(cond), wait.Timeout(window), wait.Gap(Gap)),
		must.Sprintf("%s, for %s", what, window))
}

func run(t must.T, what string, cond wait.Option, opts []wait.Option) {
	t.Helper()
	all := append([]wait.Option{cond, wait.Timeout(Timeout), wait.Gap(Gap)}, opts...)
	must.Wait(t, wait.InitialSuccess(all...), must.Sprintf("waiting for %s", what))
}

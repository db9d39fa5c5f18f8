package waitfor

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"
)

// recorder is a must.T that keeps the failure instead of ending the test.
type recorder struct{ failure string }

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) { r.failure = fmt.Sprintf(format, args...) }

func TestTrue_returnsOnceTheConditionHolds(t *testing.T) {
	var tries atomic.Int32
	r := &recorder{}
	True(r, "the third try", func() bool { return tries.Add(1) == 3 })
	must.Eq(t, "", r.failure)
	must.Eq(t, 3, tries.Load())
}

func TestTrue_failsNamingWhatItWaitedFor(t *testing.T) {
	r := &recorder{}
	True(r, "a condition that never holds", func() bool { return false }, wait.Timeout(50*time.Millisecond))
	must.StrContains(t, r.failure, "waiting for a condition that never holds")
	must.StrContains(t, r.failure, "timeout exceeded")
}

func TestNoError_failsWithTheLastError(t *testing.T) {
	var tries atomic.Int32
	r := &recorder{}
	NoError(r, "the server", func() error {
		return fmt.Errorf("try %d: %w", tries.Add(1), errors.New("connection refused"))
	}, wait.Timeout(50*time.Millisecond), wait.Gap(time.Millisecond))
	must.StrContains(t, r.failure, "waiting for the server")
	must.StrContains(t, r.failure, fmt.Sprintf("try %d: connection refused", tries.Load()))
}

func TestNoError_returnsOnNil(t *testing.T) {
	r := &recorder{}
	var tries atomic.Int32
	NoError(r, "the second try", func() error {
		if tries.Add(1) < 2 {
			return errors.New("not yet")
		}
		return nil
	})
	must.Eq(t, "", r.failure)
	must.Eq(t, 2, tries.Load())
}

func TestAlways_holdsForTheWindow(t *testing.T) {
	var tries atomic.Int32
	r := &recorder{}
	start := time.Now()
	Always(r, "the condition", 50*time.Millisecond, func() bool { tries.Add(1); return true })
	must.Eq(t, "", r.failure)
	must.GreaterEq(t, 50*time.Millisecond, time.Since(start))
	must.Greater(t, 1, tries.Load())
}

func TestAlways_failsTheFirstTimeItDoesNot(t *testing.T) {
	var tries atomic.Int32
	r := &recorder{}
	Always(r, "nothing launched", Timeout, func() bool { return tries.Add(1) < 3 })
	must.StrContains(t, r.failure, "nothing launched, for 30s")
	must.Eq(t, 3, tries.Load())
}

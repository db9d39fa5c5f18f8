package command

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/internal/waitfor"
)

// TestVarLock: the command runs while the lock is held, others can
// neither take it nor change the variable, and it is released when the
// command exits, with the command's exit code.
func TestVarLock(t *testing.T) {
	addr, vars := varAgent(t)
	dir := t.TempDir()
	started, stop := filepath.Join(dir, "started"), filepath.Join(dir, "stop")
	script := `touch "$1"; while [ ! -e "$2" ]; do sleep 0.05; done; exit 7`
	done := make(chan int, 1)
	go func() {
		code, _, _ := runCLI(t, "", "var", "lock", "-address", addr, "-ttl", "10s", "-max-retry", "0", "locks/job", "/bin/sh", "-c", script, "sh", started, stop)
		done <- code
	}()
	waitfor.True(t, "the command to start", func() bool { _, err := os.Stat(started); return err == nil })

	v, _, err := vars.Read("locks/job", nil)
	must.NoError(t, err)
	must.NotNil(t, v.Lock, must.Sprint("the variable is not locked while the command runs"))
	_, _, err = vars.Put(&api.Variable{Path: "locks/job", Items: api.VariableItems{"k": "v"}}, nil, nil)
	var conflict api.ErrCASConflict
	must.True(t, errors.As(err, &conflict), must.Sprintf("a write of a locked variable: %v", err))
	code, _, errOut := runCLI(t, "", "var", "lock", "-address", addr, "-max-retry", "0", "locks/job", "/bin/true")
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "held by another")

	must.NoError(t, os.WriteFile(stop, nil, 0o600))
	select {
	case code := <-done:
		must.Eq(t, 7, code)
	case <-time.After(cliTimeout):
		t.Fatal("var lock did not return after its command exited")
	}
	v, _, err = vars.Read("locks/job", nil)
	must.NoError(t, err)
	must.Nil(t, v.Lock, must.Sprint("the lock was not released"))
}

func TestHoldLock_renewsEachHalfTTLUntilItFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var renewals atomic.Int32
		renew := func(context.Context) error {
			if renewals.Add(1) == 4 {
				return errors.New("lock lost")
			}
			return nil
		}
		start := time.Now()
		err := holdLock(t.Context(), renew, 10*time.Second)
		must.EqError(t, err, "lock lost")
		must.Eq(t, 20*time.Second, time.Since(start))

		ctx, cancel := context.WithCancel(t.Context())
		renewals.Store(0)
		go func() { time.Sleep(12 * time.Second); cancel() }()
		must.ErrorIs(t, holdLock(ctx, renew, 10*time.Second), context.Canceled)
		must.Eq(t, int32(2), renewals.Load())
	})
}

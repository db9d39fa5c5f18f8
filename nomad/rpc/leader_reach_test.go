package rpc

import (
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shoenig/test/must"
)

func TestLeaderReach_TroubleOnceConnectsFailForTheWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &LeaderReach{After: 10 * time.Second}
		refused := &DialError{Addr: "a:4647", Err: syscall.ECONNREFUSED}

		r.Record("a:4647", refused)
		must.NoError(t, r.Trouble("a:4647"), must.Sprint("one failure says little"))
		must.True(t, r.Failing("a:4647"))
		time.Sleep(5 * time.Second)
		r.Record("a:4647", refused)
		must.NoError(t, r.Trouble("a:4647"), must.Sprint("not yet failing for the window"))
		time.Sleep(5 * time.Second)
		r.Record("a:4647", refused)
		err := r.Trouble("a:4647")
		must.ErrorIs(t, err, ErrLeaderUnreachable)
		must.StrContains(t, err.Error(), "a:4647")
		must.StrContains(t, err.Error(), "3 attempts failed over 10s")
		must.StrContains(t, err.Error(), "connection refused")
		must.NoError(t, r.Trouble("b:4647"), must.Sprint("about another leader"))

		// Any answer shows that a connection could be made, even one
		// that is an error.
		r.Record("a:4647", &RemoteError{Message: "invalid", Sentinel: ErrInvalidRequest})
		must.NoError(t, r.Trouble("a:4647"))
		must.False(t, r.Failing("a:4647"))

		// A new leader starts afresh.
		r.Record("a:4647", refused)
		time.Sleep(10 * time.Second)
		r.Record("b:4647", refused)
		must.NoError(t, r.Trouble("b:4647"))
		must.False(t, r.Failing("a:4647"))
	})
}

package nomad

import (
	"net"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
)

func TestJoinAttempts_Record(t *testing.T) {
	cases := []struct {
		name    string
		a       joinAttempts
		reached []bool
		want    []bool
	}{
		{"gives up after max unanswered rounds", joinAttempts{max: 3, pending: true}, []bool{false, false, false}, []bool{false, false, true}},
		{"an answer ends the count", joinAttempts{max: 2, pending: true}, []bool{false, true, false, false, false}, []bool{false, false, false, false, false}},
		{"zero retries for ever", joinAttempts{max: 0, pending: true}, []bool{false, false, false, false}, []bool{false, false, false, false}},
		{"no join addresses, nothing to count", joinAttempts{max: 1}, []bool{false, false}, []bool{false, false}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for i, reached := range tc.reached {
				must.Eq(t, tc.want[i], tc.a.record(reached), must.Sprintf("round %d", i+1))
			}
		})
	}
}

// deadAddr is a loopback address nothing listens on.
func deadAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must.NoError(t, err)
	addr := l.Addr().String()
	must.NoError(t, l.Close())
	return addr
}

// joiningConfig is a server that waits for two more servers and joins
// through addrs, giving up after two unanswered rounds.
func joiningConfig(t *testing.T, name string, addrs ...string) *Config {
	cfg := testConfig(t, name)
	cfg.DevMode = false
	cfg.DataDir = t.TempDir()
	cfg.BootstrapExpect = 3
	cfg.ServerJoin = addrs
	cfg.JoinInterval = 20 * time.Millisecond
	cfg.JoinMaxAttempts = 2
	return cfg
}

func TestServer_JoinGivesUpAfterMaxAttempts(t *testing.T) {
	dead := deadAddr(t)
	s := startServer(t, joiningConfig(t, "lonely", dead))
	select {
	case err := <-s.JoinFailed():
		must.ErrorContains(t, err, "server_join: none of "+dead+" answered in 2 attempts")
	case <-time.After(30 * time.Second):
		t.Fatal("the server never gave up joining")
	}
}

// A join address that answers ends the count, although no cluster forms
// (two servers of the three expected).
func TestServer_JoinKeepsWaitingOnceAnswered(t *testing.T) {
	other := startServer(t, joiningConfig(t, "other"))
	s := startServer(t, joiningConfig(t, "waiting", other.RPCAddr().String()))
	waitfor.True(t, "the two servers to know each other", func() bool { return len(s.Members()) == 2 })
	select {
	case err := <-s.JoinFailed():
		t.Fatalf("gave up although %s answered: %v", other.RPCAddr(), err)
	case <-time.After(500 * time.Millisecond): // 25 join rounds
	}
}

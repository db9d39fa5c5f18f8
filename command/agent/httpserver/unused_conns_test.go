package httpserver

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
)

// A connection that never sent a request does not hold up shutdown:
// net/http alone would count it busy for five seconds, past this test's
// three-second deadline.
func TestShutdown_closesConnectionsWithNoRequest(t *testing.T) {
	s := testServer(t, Route{Method: http.MethodGet, Path: "/v1/ok", Handler: answered})
	conn, err := net.Dial("tcp", s.Addr())
	must.NoError(t, err)
	defer conn.Close()
	waitfor.True(t, "the server to see the connection", func() bool {
		s.unused.mu.Lock()
		defer s.unused.mu.Unlock()
		return len(s.unused.conns) == 1
	})

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	must.NoError(t, s.Shutdown(ctx))
	_, err = conn.Read(make([]byte, 1))
	must.ErrorIs(t, err, io.EOF)
}

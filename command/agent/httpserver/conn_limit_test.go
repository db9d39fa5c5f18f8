package httpserver

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/tlsutil"
	"github.com/drover-io/drover/internal/tlsutil/tlstest"
)

// acceptAll accepts from ln until it closes and hands the connections
// over; the limit listener refuses inside Accept, so something must call
// it.
func acceptAll(ln net.Listener) <-chan net.Conn {
	ch := make(chan net.Conn, 16)
	go func() {
		defer close(ch)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			ch <- c
		}
	}()
	return ch
}

// capOfOne is a listener capped at one connection per client (every pipe
// is the same client) over TLS, with that one connection taken.
func capOfOne(t *testing.T, server *tlsutil.Material) *pipeListener {
	t.Helper()
	pipes := newPipeListener()
	ln := LimitConnsPerClient(pipes, 1, server.ServerConfig(false), hclog.NewNullLogger())
	t.Cleanup(func() { ln.Close() })
	accepted := acceptAll(ln)
	held := pipes.dial()
	t.Cleanup(func() { held.Close() })
	c := <-accepted
	t.Cleanup(func() { c.Close() })
	return pipes
}

const wantRefusal = "too many connections from your address: the limit is 1 at once (limits.http_max_conns_per_client)\n"

// Over HTTPS, a connection past its client's cap gets the same answer as
// over HTTP: 429 naming the limit, over TLS, and then the close.
func TestConnLimit_RefusesOverTLSWith429(t *testing.T) {
	ca := tlstest.NewCA(t)
	server := tlstest.Material(t, ca.Files(t, "server", tlsutil.RoleServer, "global"))
	// The bubble's clock starts in 2000, before the certificate is valid:
	// the client checks it at the real time.
	now := time.Now()
	dial := &tls.Config{RootCAs: server.CAs, ServerName: tlsutil.Name(tlsutil.RoleServer, "global"), Time: func() time.Time { return now }}
	synctest.Test(t, func(t *testing.T) {
		pipes := capOfOne(t, server)

		over := tls.Client(pipes.dial(), dial)
		defer over.Close()
		must.NoError(t, over.Handshake())
		resp, err := http.ReadResponse(bufio.NewReader(over), nil)
		must.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		must.NoError(t, err)
		must.Eq(t, http.StatusTooManyRequests, resp.StatusCode)
		must.Eq(t, wantRefusal, string(body))
	})
}

// Answering refusals is bounded: past maxRefusalsInFlight refused
// connections still being answered (stalled in their handshake here), the
// next one over the cap is closed at once, unanswered.
func TestConnLimit_RefusalsInFlightAreBounded(t *testing.T) {
	ca := tlstest.NewCA(t)
	server := tlstest.Material(t, ca.Files(t, "server", tlsutil.RoleServer, "global"))
	synctest.Test(t, func(t *testing.T) {
		pipes := capOfOne(t, server)

		start := time.Now()
		stalled := make([]<-chan time.Time, maxRefusalsInFlight)
		for i := range stalled {
			conn := pipes.dial()
			defer conn.Close()
			stalled[i] = closedAt(conn)
		}
		extra := pipes.dial()
		defer extra.Close()
		must.Eq(t, start, <-closedAt(extra), must.Sprint("the refusal past the bound waited"))
		for _, end := range stalled {
			must.Eq(t, start.Add(refusalHandshakeTimeout), <-end)
		}
	})
}

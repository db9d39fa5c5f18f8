package httpserver

import (
	"net"
	"net/http"
	"sync"
)

// unusedConns holds the connections that have not begun a request yet.
//
// http.Server.Shutdown closes idle connections at once but counts one that
// has never sent a request as busy for five seconds (it may be about to).
// An HTTP client that dials a spare connection for concurrent requests and
// then reuses another leaves such a connection open, and the agent's
// shutdown would wait those five seconds for nothing. Once the server is
// shutting down, no new request is served anyway: unusedConns closes them.
type unusedConns struct {
	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	closing bool
}

// track is the server's ConnState hook.
func (u *unusedConns) track(c net.Conn, state http.ConnState) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if state != http.StateNew {
		delete(u.conns, c)
		return
	}
	if u.closing {
		c.Close()
		return
	}
	if u.conns == nil {
		u.conns = map[net.Conn]struct{}{}
	}
	u.conns[c] = struct{}{}
}

// closeAll closes every connection that has not begun a request, and any
// that arrives from now on.
func (u *unusedConns) closeAll() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.closing = true
	for c := range u.conns {
		c.Close()
	}
	clear(u.conns)
}

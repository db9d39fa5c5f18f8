package agent

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/drover-io/drover/internal/tlsutil"
)

// agentTarget is another agent's HTTP API that a request is forwarded to,
// and the transport that reaches it.
type agentTarget struct {
	url       *url.URL
	transport http.RoundTripper
	// err says why the target cannot be reached; forward answers 502.
	err error
}

// forwardTransports reach other agents' HTTP APIs. With TLS on they check
// the certificate the other agent presents: a node's must name the client
// (or server) role of this region and a leader's the server role, so a
// request is never forwarded to an address a rogue party put in the
// cluster state.
type forwardTransports struct {
	toNode   http.RoundTripper
	toServer http.RoundTripper
}

func (a *Agent) forwardTransports() forwardTransports {
	return forwardTransports{
		toNode:   a.agentTransport(tlsutil.RoleClient, tlsutil.RoleServer),
		toServer: a.agentTransport(tlsutil.RoleServer),
	}
}

// nodeTarget is the HTTP API of a node at addr, which serves HTTPS when
// it registered with TLS enabled.
func (s *HTTPServer) nodeTarget(addr string, https bool) agentTarget {
	t := agentTarget{url: &url.URL{Scheme: "http", Host: addr}, transport: s.forwarders.toNode}
	if https {
		t.url.Scheme = "https"
		if s.agent.tls == nil {
			t.err = fmt.Errorf("the node at %s serves HTTPS, and this agent has no tls block to reach it with", addr)
		}
	}
	return t
}

// serverTarget is the HTTP API of another server of the cluster, which
// serves HTTPS when this one does.
func (s *HTTPServer) serverTarget(addr string) agentTarget {
	t := agentTarget{url: &url.URL{Scheme: "http", Host: addr}, transport: s.forwarders.toServer}
	if s.agent.config.TLS.HTTP {
		t.url.Scheme = "https"
	}
	return t
}

package agent

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"

	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/internal/tlsutil"
	nomadrpc "github.com/drover-io/drover/nomad/rpc"
)

// loadTLS reads the tls block's CA, certificate and key when any part of
// TLS is on. The agent loads them once, at start: a certificate rotated
// on disk takes effect at the next restart.
func (a *Agent) loadTLS() error {
	if !a.config.TLS.Enabled() {
		return nil
	}
	m, err := tlsutil.Load(a.config.TLS.Files())
	if err != nil {
		return fmt.Errorf("tls: %w", err)
	}
	a.tls = m
	return nil
}

// httpsConfig is the HTTP API's TLS configuration, nil when tls.http is
// off.
func (a *Agent) httpsConfig() *tls.Config {
	if !a.config.TLS.HTTP {
		return nil
	}
	return a.tls.ServerConfig(a.config.TLS.VerifyHTTPSClient)
}

// httpListener wraps the HTTP API's listener in TLS when https, its TLS
// configuration, is not nil.
func (a *Agent) httpListener(ln net.Listener, https *tls.Config) net.Listener {
	if https == nil {
		return ln
	}
	return httpserver.ListenTLS(ln, https, a.config.Limits.HTTPSHandshakeTimeout, a.logger.Named("http"))
}

// agentTransport is the HTTP transport this agent uses to reach another
// agent's HTTP API whose certificate names one of roles. Without a tls
// block it speaks plain HTTP.
func (a *Agent) agentTransport(roles ...tlsutil.Role) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	if a.tls != nil {
		t.TLSClientConfig = a.tls.DialConfig(a.config.Region, roles...)
	}
	return t
}

// rpcTLS is the RPC port's TLS when tls.rpc is on, nil otherwise.
func (a *Agent) rpcTLS() *nomadrpc.TLS {
	if !a.config.TLS.RPC {
		return nil
	}
	return &nomadrpc.TLS{Material: a.tls, VerifyServerHostname: a.config.TLS.VerifyServerHostname}
}

package nomad

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"net/rpc"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
)

// rpcDialer opens connections to servers' RPC ports and proves its
// credentials on each: over TLS, its certificate; without, creds, as the
// process instance names.
type rpcDialer struct {
	creds    credentials
	instance instanceID
	tls      *tls.Config // nil: no TLS
}

// newRPCDialer is a dialer that proves creds as instance; the TLS
// configuration, if any, is set on it afterwards.
func newRPCDialer(creds credentials, instance instanceID) *rpcDialer {
	return &rpcDialer{creds: creds, instance: instance}
}

// dial connects to address, announces kind and runs the handshake, all
// within timeout.
func (d *rpcDialer) dial(address string, kind byte, timeout time.Duration) (net.Conn, error) {
	deadline := time.Now().Add(timeout)
	conn, err := net.DialTimeout("tcp", address, timeout)
	if err != nil {
		return nil, err
	}
	if d.tls != nil {
		tconn, err := dialTLS(conn, d.tls, address, kind, deadline)
		if err != nil {
			conn.Close()
			return nil, err
		}
		return tconn, nil
	}
	_ = conn.SetWriteDeadline(deadline)
	if _, err := conn.Write([]byte{kind}); err != nil {
		conn.Close()
		return nil, fmt.Errorf("announce connection type to %s: %w", address, err)
	}
	proven, err := dialHandshake(conn, kind, d.creds, d.instance, deadline)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("authenticate to %s: %w", address, err)
	}
	return proven, nil
}

// clientMethods is the prefix of the RPC methods a peer that is not a
// server may call: those of the Client endpoint, each of which checks the
// node's secret ID.
const clientMethods = "Client."

// rpcServers are the RPC servers of each role a connection can prove:
// a server's connections reach every endpoint, the others the Client
// endpoint alone, which knows whether its caller may register new nodes.
type rpcServers map[connRole]*rpc.Server

// newRPCServers builds the RPC servers of each role.
func (s *Server) newRPCServers() (rpcServers, error) {
	full := rpc.NewServer()
	if err := s.registerEndpoints(full); err != nil {
		return nil, err
	}
	out := rpcServers{roleServer: full}
	for _, role := range []connRole{roleClient, roleAnonymous} {
		srv := rpc.NewServer()
		for name, rcvr := range map[string]any{
			"Client": &clientRPC{srv: s, role: role},
			"Denied": deniedRPC{},
		} {
			if err := srv.RegisterName(name, rcvr); err != nil {
				return nil, fmt.Errorf("register RPC endpoint %s: %w", name, err)
			}
		}
		out[role] = srv
	}
	return out, nil
}

// deniedRPC answers every call a peer may not make.
type deniedRPC struct{}

// Call refuses.
func (deniedRPC) Call(_ *json.RawMessage, _ *struct{}) error {
	return encodeRPCError(permissionDenied("only servers may call this RPC, and this connection did not authenticate as a server"))
}

// restrictedCodec serves a connection that did not authenticate as a
// server: a call outside the Client endpoint is answered by deniedRPC, and
// the first of those is logged.
type restrictedCodec struct {
	rpc.ServerCodec
	remote net.Addr
	role   connRole
	logger hclog.Logger
	once   sync.Once
}

func (c *restrictedCodec) ReadRequestHeader(r *rpc.Request) error {
	if err := c.ServerCodec.ReadRequestHeader(r); err != nil {
		return err
	}
	if !strings.HasPrefix(r.ServiceMethod, clientMethods) {
		method := r.ServiceMethod
		c.once.Do(func() {
			c.logger.Warn("refused an RPC only servers may call", "method", method, "remote", c.remote, "role", c.role)
		})
		r.ServiceMethod = "Denied.Call"
	}
	return nil
}

package rpc

import (
	"encoding/json"
	"errors"
	"net"
	"net/rpc"
	"strings"
	"sync"

	"github.com/hashicorp/go-hclog"
)

// clientMethods is the prefix of the RPC methods a peer that is not a
// server may call: those of the Client endpoint, each of which checks the
// node's secret ID.
const clientMethods = "Client."

// workloadMethods are the other methods such a peer may call: the reads
// of variables and services, each of which checks the caller's token or
// workload identity, for the templates of a client's tasks.
var workloadMethods = map[string]bool{"Variables.Read": true, "Variables.List": true, "Service.Read": true}

// Servers are the RPC servers of each role a connection can prove:
// a server's connections reach every endpoint, the others the Client
// endpoint alone, which knows whether its caller may register new nodes.
type Servers map[ConnRole]*rpc.Server

// Denied answers every call a peer may not make.
type Denied struct{}

// Call refuses.
func (Denied) Call(_ *json.RawMessage, _ *struct{}) error {
	return EncodeError(WithKind(ErrPermissionDenied, errors.New("permission denied: only servers may call this RPC, and this connection did not authenticate as a server")))
}

// restrictedCodec serves a connection that did not authenticate as a
// server: a call outside the Client endpoint is answered by Denied, and
// the first of those is logged.
type restrictedCodec struct {
	rpc.ServerCodec
	remote net.Addr
	role   ConnRole
	logger hclog.Logger
	once   sync.Once
}

func (c *restrictedCodec) ReadRequestHeader(r *rpc.Request) error {
	if err := c.ServerCodec.ReadRequestHeader(r); err != nil {
		return err
	}
	if !strings.HasPrefix(r.ServiceMethod, clientMethods) && !workloadMethods[r.ServiceMethod] {
		method := r.ServiceMethod
		c.once.Do(func() {
			c.logger.Warn("refused an RPC only servers may call", "method", method, "remote", c.remote, "role", c.role)
		})
		r.ServiceMethod = "Denied.Call"
	}
	return nil
}

package nomad

import (
	"fmt"
	"net/rpc"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
)

// newRPCServers builds the RPC servers of each role.
func (s *Server) newRPCServers() (nomadrpc.Servers, error) {
	full := rpc.NewServer()
	if err := s.registerEndpoints(full); err != nil {
		return nil, err
	}
	out := nomadrpc.Servers{nomadrpc.RoleServer: full}
	for _, role := range []nomadrpc.ConnRole{nomadrpc.RoleClient, nomadrpc.RoleAnonymous} {
		srv := rpc.NewServer()
		for name, rcvr := range map[string]any{
			"Client": &clientRPC{srv: s, role: role},
			"Denied": nomadrpc.Denied{},
			// A client reads variables with a task's workload
			// identity, which every call carries and proves.
			"Variables": &variablesReadRPC{s},
			// And services, for nomadService and nomadServices.
			"Service": &serviceReadRPC{s},
		} {
			if err := srv.RegisterName(name, rcvr); err != nil {
				return nil, fmt.Errorf("register RPC endpoint %s: %w", name, err)
			}
		}
		out[role] = srv
	}
	return out, nil
}

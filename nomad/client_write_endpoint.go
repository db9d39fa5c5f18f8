package nomad

import "context"

// clientRPC serves the writes of client agents. Unlike the endpoints that
// serve requests forwarded by other servers, it does not mark its requests
// as forwarded: a client may reach any server, and a follower that gets
// its write must send it on to the leader itself, as it does for a write
// that came over HTTP.
type clientRPC struct{ srv *Server }

// serveClient runs fn with a context bounded by the forward timeout and
// the server's life, and encodes its error for the wire.
func (s *Server) serveClient(fn func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(s.shutdownCtx, s.config.ForwardTimeout)
	defer cancel()
	return encodeRPCError(fn(ctx))
}

// Register serves NodeRegister to a client agent.
func (e *clientRPC) Register(args *NodeRegisterRequest, reply *NodeUpdateResponse) error {
	return e.srv.serveClient(func(ctx context.Context) error {
		return fill(reply)(e.srv.NodeRegister(ctx, args.Node))
	})
}

// Heartbeat serves NodeHeartbeat to a client agent.
func (e *clientRPC) Heartbeat(args *NodeHeartbeatRequest, reply *NodeHeartbeatResponse) error {
	return e.srv.serveClient(func(ctx context.Context) error {
		ttl, err := e.srv.NodeHeartbeat(ctx, args.NodeID)
		reply.HeartbeatTTL = ttl
		return err
	})
}

// UpdateAllocs serves UpdateAllocsFromClient to a client agent.
func (e *clientRPC) UpdateAllocs(args *AllocClientUpdateRequest, reply *IndexResponse) error {
	return e.srv.serveClient(func(ctx context.Context) error {
		index, err := e.srv.UpdateAllocsFromClient(ctx, args.Allocs)
		reply.Index = index
		return err
	})
}

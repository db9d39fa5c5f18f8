// Package rpc is the servers' transport: the one TCP port every server
// listens on, what travels over it, and how a peer proves what it is.
//
// It owns the connection multiplexer (Mux: the first byte of a
// connection says raft or RPC), the raft stream layer, the handshake
// that binds a connection to the cluster key (or mutual TLS, which
// proves it by certificate) and the sealed records that follow it, the
// limits on what a connection of each role may send and hold, the
// JSON-RPC codec, the client connection pool, the encoding of the
// errors that keep their kind (ErrNotFound, ErrNoLeader, ...) across a
// hop, and LeaderReach, which tells from a follower's attempts to
// connect whether the leader's port can be reached.
//
// It knows nothing of the server behind the port: which endpoints exist,
// who leads, what is in the state. It must not import package nomad or
// any of its other subpackages but the state store, whose not-found
// sentinel it carries.
package rpc

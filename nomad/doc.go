// Package nomad is the Drover server: the raft-replicated cluster state, the
// FSM that applies the raft log to the state store, the RPC that servers
// speak among themselves, cluster formation, and the write endpoints.
//
// # One port
//
// A server listens on one TCP port (4647 by default). The first byte of
// every connection says what it carries: 0x01 raft (handed to raft's
// network transport through a stream layer), 0x02 RPC (Go's net/rpc with
// the JSON-RPC codec). This RPC is internal to Drover; clients and users
// speak the HTTP API.
//
// # Writes
//
// Every write is a raft log entry: a message type byte followed by the
// entry as JSON (see MessageType and the *Entry types). Write methods on
// Server run on the leader; on a follower they forward the request over
// RPC to the leader, waiting for one to be elected if need be. A forwarded
// request is never forwarded again: a server that receives one and is not
// the leader says so, and the forwarding server looks for the leader anew.
// Errors keep their kind across the hop (ErrNotFound, ErrInvalidRequest,
// ErrIndexConflict, ErrNoLeader) so callers can use errors.Is.
//
// # Reads
//
// Reads are local: callers query Server.State() with blocking queries.
//
// # Forming a cluster
//
// A server with bootstrap_expect of 0 or 1 and no raft state bootstraps a
// cluster of itself. Otherwise it exchanges member lists with the servers
// of server_join, and with every server it learns of, until either a
// cluster with a leader exists (it then asks the leader to add it as a
// voter) or bootstrap_expect servers know of each other and none is in a
// cluster yet (each then bootstraps the same, sorted configuration).
package nomad

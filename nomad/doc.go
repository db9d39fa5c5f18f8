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
// speak the HTTP API. The peer then proves its role: by its certificate
// under TLS (rpc_tls.go), else by a handshake bound to the connection
// after which both directions travel in sealed records (handshake.go,
// record.go). What a connection may send depends on that role
// (rpc_request_limit.go).
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
// A write is bounded by its caller's context, or the forward timeout. A
// forwarded call follows raft's leader: when raft elects another leader
// while the call waits for an answer (the old one froze, or was cut
// off), a write that is safe to repeat is sent to the new one, and any
// other is answered at once. The request carries its deadline; the leader
// refuses one that arrives, or is still unproposed, after it. So a write
// that does not succeed says which it is: ErrNotApplied (or ErrNoLeader:
// it never entered the log) or ErrMayStillApply (it reached a leader, or
// may have, and no answer came). See forward.go and write_deadline.go.
//
// A follower that cannot open connections to the leader raft follows
// reports it (LeaderUnreachable) and refuses the writes it would have to
// forward; the leader collects the client heartbeats it took through its
// member probe, so that no node is marked down for the servers' trouble
// (leader_reach.go, heartbeat_relay.go).
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
//
// # The leader's loops
//
// Whichever server leads runs the scheduling machinery; it starts on
// gaining leadership (raft's LeaderCh) and stops on losing it. The FSM
// tells it, on the goroutine that applies the log, what each entry
// changed.
//
//   - The eval broker hands pending evaluations to the workers, highest
//     priority first, one per job at a time, redelivering those a worker
//     gives back or holds too long, up to a delivery limit after which the
//     evaluation fails with a delayed follow-up. Evaluations with a
//     WaitUntil wait for it.
//   - Blocked evaluations (allocations left unplaced for lack of room) wait
//     until capacity appears: a node registers or becomes ready or
//     eligible, or an allocation stops.
//   - Workers (one per core) run the scheduler of the evaluation's job type
//     over a snapshot of the state and submit its plans.
//   - The plan applier checks each plan against the latest state, including
//     the plan still being committed, keeps the nodes whose part still fits,
//     stamps CreateTime and ModifyTime and commits them in one raft entry,
//     checking the next plan while the previous one commits.
//   - Heartbeat timers mark down the nodes that stop heartbeating; their
//     allocations are then lost and replaced.
//   - The periodic dispatcher launches the children of periodic jobs on
//     their cron schedules, and once for a run missed while there was no
//     leader.
//   - The job status updater derives each job's status from its
//     allocations and evaluations.
//   - The drainer migrates the service allocations off draining nodes, lets
//     batch work finish, and stops what is left at the deadline.
//
// On gaining leadership the leader restores what the state holds: pending
// and blocked evaluations, heartbeat timers (with a failover TTL) and the
// periodic schedules.
package nomad

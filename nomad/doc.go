// Package nomad is the Drover server: it ties raft, the FSM that applies
// the raft log to the state store, the server's endpoints (writes and
// reads), cluster formation and the leader's loops together. What can
// stand alone lives in the subpackages below, none of which imports
// nomad:
//
//   - rpc: the one TCP port, its handshake, TLS, sealed records and
//     limits, the connection pool, and the error kinds that survive a hop;
//   - logentry: the raft log's entries, how each validates and applies
//     itself to the state store, and the events it publishes;
//   - raftstore: raft's log, stable and snapshot stores;
//   - broker: the eval broker, blocked evaluations, plan queue and the
//     reaper of failed and redundant evaluations;
//   - planeval: the check of a plan against the state;
//   - heartbeat, periodic, drainer, jobstatus, maxrunstats, varlock: the
//     leader's loops and timers (maxrunstats runs on every server), each
//     handed what it needs of the server, a function or a small interface;
//   - membership: the servers this server knows of;
//   - auth: what each user's write needs of its caller, and the caller's
//     identity as it travels in a request's context;
//   - state, stream, snapshot: the state store, the event stream, the
//     snapshot archive.
//
// # Writes
//
// Every write is a raft log entry (package logentry). Write methods on
// Server run on the leader; on a follower they forward the request over
// RPC to the leader, waiting for one to be elected if need be. A forwarded
// request is never forwarded again: a server that receives one and is not
// the leader says so, and the forwarding server looks for the leader anew.
// Errors keep their kind across the hop (ErrNotFound, ErrInvalidRequest,
// ErrIndexConflict, ErrNoLeader) so callers can use errors.Is.
//
// A user's write is checked once, by the method that serves it
// (authorize, acl_checks.go): on the leader for a write that goes through
// raft (userWrite; a forwarded one carries the caller's secret, which the
// leader resolves), on the server the request reaches for the rest (a
// plan, an evaluation, a snapshot restore). The HTTP API resolves the
// caller and hands the identity in (auth.WithCaller); with ACLs on, a
// write without one is refused. A submitted job is validated once, by
// jobcheck.Submitted, on the server the request reaches.
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
// Every read of the state by a caller, the HTTP API or a client over
// RPC, goes through one door, read (read.go), with the caller's identity
// in its QueryOptions: the ACL its list reads filter by, and the token.
// read owns what a blocking query means (minimum index, bounded wait,
// watch sets, a store swapped by a snapshot restore), the index a result
// is reported at, and whether this server may answer at all: a read that
// is not stale first catches up with the leader's state (read_index.go),
// and a server that knows no leader answers ErrNoLeader. The read methods
// (read_jobs.go, read_allocs.go, read_evals.go, read_nodes.go, ...) only
// say what to read. Server.State is for the server's own loops and for
// tests, not for callers.
//
// # Variables
//
// Nomad Variables are sealed on the leader, with the keyring's active
// root key, before their entry enters the log, and opened on the server
// that answers a read (variables_keyring.go); the raft log, the state
// store and snapshots hold them sealed. The Variables RPC endpoint serves
// Read and List to clients too, each call checking its caller's token or
// task identity (a client renders a task's templates with it), and Apply
// to the servers that forward writes. A full keyring rotation re-encrypts
// them (variables_rekey.go); the leader keeps the TTL timers of their
// locks (package varlock).
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
// gaining leadership (raft's LeaderCh) and stops on losing it (leader.go).
// The FSM tells it, on the goroutine that applies the log, what each entry
// changed. Workers (worker.go, one per core) run the scheduler of each
// evaluation the broker hands them over a snapshot of the state and
// submit its plans; the plan applier (plan_apply.go) checks each plan
// against the latest state (package planeval), including the plan still
// being committed, and commits what fits in one raft entry while it
// checks the next. On gaining leadership the leader restores what the
// state holds: pending and blocked evaluations, heartbeat timers (with a
// failover TTL) and the periodic schedules.
package nomad

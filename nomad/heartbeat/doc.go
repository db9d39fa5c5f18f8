// Package heartbeat keeps the leader's node heartbeat timers and a
// follower's relay of the heartbeats it could not forward.
//
// Timers holds one timer per live node and calls the expire function it
// is handed for a node whose client stops heartbeating; the server marks
// that node down. The TTL a client is told scales with the number of
// nodes. Relay holds, on a follower, the heartbeats it took and has not
// got to the leader, which collects them when it probes the follower.
//
// It must not import package nomad or any of its other subpackages.
package heartbeat

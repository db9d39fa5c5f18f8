// Package broker holds the leader's queues of work: the eval broker,
// which hands pending evaluations to the workers, highest priority first
// and one per job at a time, redelivering those given back or held too
// long; the blocked evaluations, which wait for capacity to appear; the
// plan queue, which orders the workers' plans for the plan applier; and
// the reaper, which fails the evaluations past their delivery limit and
// cancels the redundant ones.
//
// The queues live in memory and only on the leader, which fills them
// from the state when it gains leadership. They know nothing of raft or
// the state store: the server tells them what changed, and the reaper
// writes through the function it is handed. The package must not import
// package nomad or any of its other subpackages.
package broker

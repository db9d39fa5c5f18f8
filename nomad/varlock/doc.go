// Package varlock keeps the leader's timers of the locks held on Nomad
// Variables.
//
// A lock is held for its TTL and renewed by its holder before the TTL
// ends. A lock not renewed in time is lost, but the variable stays locked
// for the lock's delay on top, so that a holder that has not noticed yet
// cannot overlap with the next one; then Timers calls the expire function
// it is handed, and the server releases the lock through raft. Timers
// live on the leader only: a new leader arms a full TTL for every lock it
// finds.
//
// It must not import package nomad or any of its other subpackages.
package varlock

// Package pendingtimeout owns the leader's max_pending_duration timers:
// one per blocked evaluation whose placements a group's
// max_pending_duration bounds, armed at the earliest of their deadlines.
//
// The instant a deadline counts from is in the raft state (the blocked
// evaluation's PendingSince), so a new leader re-arms every timer from
// the state when it establishes leadership, and a deadline that passed
// while no server led fires at once. What firing does (giving up the
// placements through raft) is the server's: the timers only say when.
package pendingtimeout

// Package structs is Drover's internal model of jobs, allocations,
// evaluations and nodes: the types the server stores and schedules, and the
// client runs. Unlike the wire types in package api, optional values here are
// plain values, filled in by canonicalisation, so the rest of the system
// never has to ask whether a field was set.
//
// The model imports no other package of Drover. Its JSON encoding is what
// raft entries, snapshots and the client's state hold, so it carries only
// what is stored: nothing computed for display. The HTTP layer
// (command/agent/convert) converts between the model and the wire types, in both
// directions, and adds the wire's derived fields (MaxRunDeadline) there.
package structs

// Package logentry defines the raft log's entries: each write to the
// cluster state is one entry, a MessageType byte followed by the entry as
// JSON. An entry knows its type, checks its own shape (Validate, which
// the leader runs before the entry enters the log) and writes itself to
// the state store at its raft index (ApplyTo, which must depend only on
// the entry, the index and the store, so that every server ends with the
// same state).
//
// Events turns what an applied entry changed into the events of the
// event stream, the same on every server.
//
// The MessageType values are written to disk: never renumber or reuse
// one, and keep every field an old entry may carry.
//
// It must not import package nomad or any of its other subpackages but
// the state store, stream (the events) and rpc, whose error kinds
// entries report.
package logentry

// Package state is the server's in-memory state store: jobs, job versions,
// evaluations, allocations, nodes and periodic launches, held in go-memdb
// tables and written only by the FSM as it applies raft log entries.
//
// Every write takes the raft index it applies at and records it, per table,
// in the index table; reads take a memdb.WatchSet that collects the channels
// a blocking query waits on. Stored objects are immutable: a write stores a
// fresh object (the store takes ownership of what it is handed and sets its
// server fields), and readers get the stored pointers without copies, so
// they must never modify them.
//
// The read methods (JobByID, AllocsByNode, JobSummaryByID, Index, ...) are
// shared by StateStore and StateSnapshot. Reading an absent object returns
// nil and no error.
//
// A StateSnapshot is a point-in-time view with the same read methods; it
// persists every table as a stream of JSON records, and Restore builds a new
// store from such a stream. The FSM swaps its store for the restored one and
// then calls Abandon on the old store, which wakes blocking queries still
// waiting on it so that they can retry on the new one.
package state

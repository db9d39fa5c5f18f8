// Package maxrunstats is a server's view of max_run_duration across the
// cluster, kept for dashboards: how many allocations with a deadline run,
// and how many a deadline stopped, per namespace, job, group and task.
//
// Every server keeps it from its own state, the same on each, since every
// server applies the same log: the FSM hands it the changes each entry
// made, and a loop counts the running allocations. It must not import
// package nomad or any of its other subpackages but the state store.
package maxrunstats

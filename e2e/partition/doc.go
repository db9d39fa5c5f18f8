// Package partition tests a Drover cluster under network partitions as
// they really happen: three servers and a client, each a real agent
// process in a network namespace of its own (e2e/netns), links cut both
// ways and one way, and a leader frozen with SIGSTOP. Under each fault,
// callers on every server register, stop and read jobs over the HTTP API;
// the history of their calls is checked for linearizability against a
// model of the job store (porcupine), and the allocations running on the
// client meanwhile must be killed within a second of their
// max_run_duration deadline.
//
// The package's own code is the model, the history of calls, and what an
// answer of the HTTP API means to the model (a write's error: failed,
// unless it says that the write may still apply; no answer: unknown); the
// cluster, the faults and the callers are its tests. The tests need root
// (netns.Require) and are skipped with -short.
package partition

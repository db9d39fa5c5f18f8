// Package exec is the exec task driver: it runs a command isolated as
// Nomad's exec driver does, in its own mount, PID and IPC namespaces, with
// the task directory as its root (the client's chroot_env bound in
// read-only, its host volumes where its volume_mounts say), held to its cpu, cores, memory and memory_max by a cgroup,
// with a reduced set of capabilities and as the task's user.
//
// It owns the driver's plugin options, the reading of a task's config and
// the making of its isolation spec. The running is raw_exec's: the same
// per-task supervisor (so tasks outlive an agent restart and keep their
// logs), asked to isolate the task through package isolate.
package exec

// Package isolate runs one task the way the exec driver isolates it, with
// the kernel's own interfaces: its own mount, PID and IPC namespaces, a
// root made of the task directory with the host paths of the client's
// chroot_env bound in read-only, a cgroup holding it to its resources, a
// reduced capability bounding set and the task's user.
//
// It owns two halves. The supervisor's (Prepare, Launch): make the task's
// cgroup, start the init below in new namespaces, and after the task ended
// kill whatever it left, tell whether the kernel's OOM killer ended it and
// remove the cgroup. The init's (InitMain): a re-execution of the agent's
// binary that, inside the new namespaces, joins the cgroup, builds the
// root, pivots into it, drops capabilities and the user's privileges and
// execs the task's command, which so becomes PID 1 of its namespace as in
// Nomad. It reports a failure before the exec on a pipe, so that a task
// whose root cannot be built fails to start rather than exits.
package isolate

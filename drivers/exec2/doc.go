// Package exec2 is the exec2 task driver, Drover's own take on Nomad's
// external exec2 plugin: a command runs in the host's file system, which
// Landlock makes unreachable but for the task's and the shared alloc
// directory and the paths its client and (where allowed) its job unveil,
// in its own mount, PID and IPC namespaces, held to its resources by a
// cgroup, with no capabilities and no new privileges.
//
// It owns the plugin's options, the reading of a task's config and the
// making of its isolation spec; the isolating is package isolate's
// (HostRoot), the running raw_exec's supervisor, as for exec.
package exec2

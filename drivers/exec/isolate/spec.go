package isolate

// Spec is how one task is isolated. The exec driver fills it; the task's
// supervisor carries it (in its spec file) to Prepare.
type Spec struct {
	// AllocRoot is the allocation's directory; TaskName and AllocDirName
	// are the task's and the shared directory's names in it. The task
	// directory becomes the task's root, the shared one its /alloc.
	AllocRoot    string `json:"alloc_root"`
	TaskName     string `json:"task_name"`
	AllocDirName string `json:"alloc_dir_name"`

	// ChrootEnv maps host paths to paths inside the task's root, each
	// bound read-only; a host path that does not exist is left out.
	ChrootEnv map[string]string `json:"chroot_env"`
	// Volumes are the task's host volumes (volumes.go).
	Volumes []Volume `json:"volumes,omitempty"`

	PrivatePID bool `json:"private_pid"`
	PrivateIPC bool `json:"private_ipc"`

	// Caps are the capabilities the task may hold (its bounding set), by
	// Linux's names without "CAP_", lower case.
	Caps []string `json:"caps"`

	// User is the task's user; nil runs it as the agent's (root).
	User *User `json:"user,omitempty"`

	Cgroup CgroupSpec `json:"cgroup"`

	// HostRoot runs the task in the host's file system rather than in a
	// root of its own (exec2): ChrootEnv and Volumes are not used, its
	// working directory is the task directory, and Landlock holds it to
	// Unveil (landlock.go), with no capabilities and no new privileges.
	HostRoot bool         `json:"host_root,omitempty"`
	Unveil   []PathAccess `json:"unveil,omitempty"`
}

// PathAccess is a host path a HostRoot task may reach, and how.
type PathAccess struct {
	Path string `json:"path"`
	// Read lets the task read files and list directories; Write, write
	// and truncate files; Execute, execute files; Create, make, rename
	// and remove the entries of a directory.
	Read    bool `json:"r,omitempty"`
	Write   bool `json:"w,omitempty"`
	Execute bool `json:"x,omitempty"`
	Create  bool `json:"c,omitempty"`
	// IfExists leaves the path out where it does not exist (the
	// defaults); otherwise a missing path fails the task's start.
	IfExists bool `json:"if_exists,omitempty"`
}

// User is a user to run the task as.
type User struct {
	UID    uint32   `json:"uid"`
	GID    uint32   `json:"gid"`
	Groups []uint32 `json:"groups,omitempty"`
}

// CgroupSpec names the task's cgroup and the limits it enforces.
type CgroupSpec struct {
	// Name is the cgroup's directory name, unique per task run.
	Name string `json:"name"`
	// CPUShares is the task's `cpu` in MHz: its share of CPU time
	// against the other tasks (cpu.weight on cgroup v2, cpu.shares on v1).
	CPUShares uint64 `json:"cpu_shares"`
	// Cpuset is the CPUs the task may run on ("0-1,3"); empty means all.
	Cpuset string `json:"cpuset,omitempty"`
	// MemoryMax is the hard limit in bytes; MemoryLow, when set, the
	// memory the kernel protects from reclaim (the task's `memory` when it
	// also has `memory_max`).
	MemoryMax int64 `json:"memory_max"`
	MemoryLow int64 `json:"memory_low,omitempty"`
}

// initSpec is what the supervisor sends the init on its spec pipe.
type initSpec struct {
	Spec
	Path string   `json:"path"`
	Args []string `json:"args"`
	Env  []string `json:"env"`
	// CgroupProcs are the cgroup.procs files the init joins.
	CgroupProcs []string `json:"cgroup_procs"`
}

package isolate

// Volume is a host volume bound into the task's root.
type Volume struct {
	// HostPath is the client operator's directory: trusted, opened as it
	// is on the host.
	HostPath string `json:"host_path"`
	// Dest is where the task sees it, an absolute path inside its root;
	// the job author's, so it is resolved beneath the root, links
	// followed only inside it.
	Dest     string `json:"dest"`
	ReadOnly bool   `json:"read_only,omitempty"`
}

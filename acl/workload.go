package acl

// Workload is who a workload identity speaks for: one task of one
// allocation. Its ACL grants reading that allocation and its job, in its
// namespace, and reading its job's variables (variables.go), and nothing
// else: none of the rules of policies, so every other check refuses it.
type Workload struct {
	Namespace    string
	JobID        string
	AllocationID string
	// TaskGroup is the group of the allocation, which the identity's
	// claims do not carry: the server fills it in from the allocation.
	TaskGroup string
	Task      string
	// ParentJobID is the parent of a dispatched or periodic child job:
	// its variables are the parent's, as in Nomad.
	ParentJobID string
}

// NewWorkload returns the ACL of a workload identity.
func NewWorkload(w Workload) *ACL { return &ACL{workload: &w} }

// Workload returns the workload an ACL speaks for, nil for an ACL made of
// policies.
func (a *ACL) Workload() *Workload {
	if a == nil || a.workload == nil {
		return nil
	}
	w := *a.workload
	return &w
}

// AllowWorkloadAlloc reports whether a is the ACL of a workload of the
// allocation allocID in namespace.
func (a *ACL) AllowWorkloadAlloc(namespace, allocID string) bool {
	w := a.Workload()
	return w != nil && w.Namespace == namespace && w.AllocationID == allocID
}

// AllowWorkloadJob reports whether a is the ACL of a workload of the job
// jobID in namespace.
func (a *ACL) AllowWorkloadJob(namespace, jobID string) bool {
	w := a.Workload()
	return w != nil && w.Namespace == namespace && w.JobID == jobID
}

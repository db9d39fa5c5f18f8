package acl

// AllowServiceRead reports whether a may read the service registrations
// of namespace: with read-job there, or as a workload identity of a job
// in that namespace, whose templates read its neighbours' services as
// Nomad's workload identities may.
func (a *ACL) AllowServiceRead(namespace string) bool {
	if w := a.Workload(); w != nil {
		return w.Namespace == namespace
	}
	return a.AllowNamespaceOperation(namespace, CapReadJob)
}

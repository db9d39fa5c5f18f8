package structs

// ServicesReadRequest reads service registrations over RPC as the holder
// of AuthToken: what a client's template renderer sends with a task's
// workload identity for nomadService and nomadServices.
type ServicesReadRequest struct {
	Namespace string
	// ServiceName names the service read; empty lists every service of
	// Namespace.
	ServiceName string
	QueryOptions
}

// ServicesReadResponse is the registrations a ServicesReadRequest reads.
type ServicesReadResponse struct {
	Services []*ServiceRegistration
	QueryMeta
}

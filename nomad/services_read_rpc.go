package nomad

import (
	"context"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/nomad/auth"
	"github.com/drover-io/drover/structs"
)

// ReadServices answers req for the caller ctx carries, who needs to read
// services in req.Namespace (acl.AllowServiceRead); with MinQueryIndex it
// blocks until the services table changes past it.
func (s *Server) ReadServices(ctx context.Context, req *structs.ServicesReadRequest) (*structs.ServicesReadResponse, error) {
	ns := defaultNamespace(req.Namespace)
	var caller *acl.ACL
	err := s.authorize(ctx, func(a *acl.ACL) error {
		caller = a
		if !a.AllowServiceRead(ns) {
			return auth.Denied("reading services needs %s in namespace %q", acl.CapReadJob, ns)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	q := variablesQuery(ns, req.QueryOptions)
	q.ACL = caller
	var (
		regs []*structs.ServiceRegistration
		meta QueryMeta
	)
	if req.ServiceName == "" {
		regs, meta, err = s.ListServiceRegistrations(ctx, q)
	} else {
		regs, meta, err = s.GetServiceRegistrations(ctx, req.ServiceName, q)
	}
	if err != nil {
		return nil, err
	}
	return &structs.ServicesReadResponse{Services: regs, QueryMeta: queryMeta(meta)}, nil
}

// serviceReadRPC is the Service endpoint's read, which a client calls
// with a task's workload identity.
type serviceReadRPC struct{ srv *Server }

// Read serves ReadServices over RPC, to the holder of args.AuthToken.
func (e *serviceReadRPC) Read(args *structs.ServicesReadRequest, reply *structs.ServicesReadResponse) error {
	return e.srv.serveUserRead(args.AuthToken, args.QueryOptions, func(ctx context.Context) error {
		return fill(reply)(e.srv.ReadServices(ctx, args))
	})
}

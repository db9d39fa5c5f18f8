package nomad

import (
	"context"
	"slices"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/nomad/auth"
	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// ServiceRegistrationUpsertRequest carries the registrations a node makes
// for the services of its allocations.
type ServiceRegistrationUpsertRequest struct {
	WriteDeadline
	Services []*structs.ServiceRegistration
	// NodeID and SecretID are the registering node and the proof that
	// the caller is it: a node registers services of its own
	// allocations only.
	NodeID   string
	SecretID string
}

// ServiceRegistrationDeleteByAllocRequest removes the registrations of
// allocations whose services stopped.
type ServiceRegistrationDeleteByAllocRequest struct {
	WriteDeadline
	AllocIDs []string
	NodeID   string
	SecretID string
}

// ServiceRegistrationDeleteRequest removes one registration, as an
// operator does.
type ServiceRegistrationDeleteRequest struct {
	AuthRequest
	WriteDeadline
	Namespace string
	ID        string
}

// UpsertServiceRegistrations stores the registrations a node made; the
// node's identity was checked by the RPC layer (clientRPC) or is the
// agent's own.
func (s *Server) UpsertServiceRegistrations(ctx context.Context, req *ServiceRegistrationUpsertRequest) (*IndexResponse, error) {
	return leaderWrite(ctx, s, "Service.Upsert", req, s.upsertServicesLocal)
}

func (s *Server) upsertServicesLocal(ctx context.Context, req *ServiceRegistrationUpsertRequest) (*IndexResponse, error) {
	if len(req.Services) == 0 {
		return nil, invalidf("service registration: no services")
	}
	if err := s.leaderBarrier(ctx); err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(req.Services))
	for i, reg := range req.Services {
		if reg == nil {
			return nil, invalidf("service registration %d is nil", i)
		}
		if err := reg.Validate(); err != nil {
			return nil, invalidf("%v", err)
		}
		if reg.NodeID != req.NodeID {
			return nil, permissionDenied("service %q names node %s, not the registering node %s", reg.ID, reg.NodeID, req.NodeID)
		}
		ids = append(ids, reg.AllocID)
	}
	if err := allocIDsOnNode(s.State(), req.NodeID, ids); err != nil {
		return nil, err
	}
	index, err := s.raftApply(ctx, logentry.MsgServiceUpsert, &logentry.ServiceRegistrationUpsert{Services: req.Services})
	return &IndexResponse{Index: index}, err
}

// DeleteServiceRegistrationsByAlloc removes every registration of the
// allocations of the node req names.
func (s *Server) DeleteServiceRegistrationsByAlloc(ctx context.Context, req *ServiceRegistrationDeleteByAllocRequest) (*IndexResponse, error) {
	return leaderWrite(ctx, s, "Service.DeleteByAlloc", req, s.deleteServicesByAllocLocal)
}

func (s *Server) deleteServicesByAllocLocal(ctx context.Context, req *ServiceRegistrationDeleteByAllocRequest) (*IndexResponse, error) {
	if len(req.AllocIDs) == 0 {
		return nil, invalidf("service deregistration: no allocations")
	}
	if err := s.leaderBarrier(ctx); err != nil {
		return nil, err
	}
	if err := allocIDsOnNode(s.State(), req.NodeID, req.AllocIDs); err != nil {
		return nil, err
	}
	index, err := s.raftApply(ctx, logentry.MsgServiceDelete, &logentry.ServiceRegistrationDelete{AllocIDs: req.AllocIDs})
	return &IndexResponse{Index: index}, err
}

// allocIDsOnNode refuses allocations stored on another node than nodeID.
func allocIDsOnNode(st *state.StateStore, nodeID string, ids []string) error {
	for _, id := range ids {
		stored, err := st.AllocByID(nil, id)
		if err != nil {
			return err
		}
		if stored != nil && stored.NodeID != nodeID {
			return permissionDenied("allocation %s is not on node %s", id, nodeID)
		}
	}
	return nil
}

// DeleteServiceRegistration removes one registration: submit-job in its
// namespace, as Nomad's. An unknown ID is ErrNotFound.
func (s *Server) DeleteServiceRegistration(ctx context.Context, req *ServiceRegistrationDeleteRequest) (*IndexResponse, error) {
	return userWrite(ctx, s, "Service.Delete", req, allowServiceDelete, func(ctx context.Context, req *ServiceRegistrationDeleteRequest) (*IndexResponse, error) {
		if req.ID == "" {
			return nil, invalidf("service deregistration: no registration ID")
		}
		entry := &logentry.ServiceRegistrationDelete{Namespace: defaultNamespace(req.Namespace), ID: req.ID}
		index, err := s.raftApply(ctx, logentry.MsgServiceDelete, entry)
		return &IndexResponse{Index: index}, err
	})
}

func allowServiceDelete(a *acl.ACL, req *ServiceRegistrationDeleteRequest) error {
	ns := defaultNamespace(req.Namespace)
	if !a.AllowNamespaceOperation(ns, acl.CapSubmitJob) {
		return auth.Denied("deleting a service registration needs %s in namespace %q", acl.CapSubmitJob, ns)
	}
	return nil
}

// ListServiceRegistrations returns the registrations of q.Namespace
// (AllNamespaces: of every namespace), of the namespaces where q.ACL may
// read services (acl.AllowServiceRead).
func (s *Server) ListServiceRegistrations(ctx context.Context, q QueryOptions) ([]*structs.ServiceRegistration, QueryMeta, error) {
	return read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) ([]*structs.ServiceRegistration, uint64, error) {
		regs, err := st.ServiceRegistrations(ws)
		regs = slices.DeleteFunc(regs, func(r *structs.ServiceRegistration) bool { return !q.ACL.AllowServiceRead(r.Namespace) })
		if q.Namespace != AllNamespaces {
			ns := defaultNamespace(q.Namespace)
			regs = slices.DeleteFunc(regs, func(r *structs.ServiceRegistration) bool { return r.Namespace != ns })
		}
		return resultAt(st, regs, err, state.TableServices)
	})
}

// GetServiceRegistrations returns the registrations of the service name
// in q.Namespace, if q.ACL may read services there (acl.AllowServiceRead).
func (s *Server) GetServiceRegistrations(ctx context.Context, name string, q QueryOptions) ([]*structs.ServiceRegistration, QueryMeta, error) {
	return read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) ([]*structs.ServiceRegistration, uint64, error) {
		regs, err := st.ServiceRegistrationsByName(ws, defaultNamespace(q.Namespace), name)
		regs = slices.DeleteFunc(regs, func(r *structs.ServiceRegistration) bool { return !q.ACL.AllowServiceRead(r.Namespace) })
		return resultAt(st, regs, err, state.TableServices)
	})
}

// serviceRPC serves the service registration writes forwarded by other
// servers: a client's (whose node a server checked before forwarding)
// and an operator's delete.
type serviceRPC struct{ serviceReadRPC }

// Upsert serves UpsertServiceRegistrations.
func (e *serviceRPC) Upsert(args *ServiceRegistrationUpsertRequest, reply *IndexResponse) error {
	return e.srv.serveRPC(func(ctx context.Context) error {
		return fill(reply)(e.srv.UpsertServiceRegistrations(ctx, args))
	})
}

// DeleteByAlloc serves DeleteServiceRegistrationsByAlloc.
func (e *serviceRPC) DeleteByAlloc(args *ServiceRegistrationDeleteByAllocRequest, reply *IndexResponse) error {
	return e.srv.serveRPC(func(ctx context.Context) error {
		return fill(reply)(e.srv.DeleteServiceRegistrationsByAlloc(ctx, args))
	})
}

// Delete serves DeleteServiceRegistration.
func (e *serviceRPC) Delete(args *ServiceRegistrationDeleteRequest, reply *IndexResponse) error {
	return e.srv.serveUserRPC(args.AuthToken, func(ctx context.Context) error {
		return fill(reply)(e.srv.DeleteServiceRegistration(ctx, args))
	})
}

package nomad

import "context"

// RegisterServices serves UpsertServiceRegistrations to a client agent,
// for services of its own node's allocations only.
func (e *clientRPC) RegisterServices(args *ServiceRegistrationUpsertRequest, reply *IndexResponse) error {
	return e.srv.serveClient(func(ctx context.Context) error {
		if err := e.srv.checkNodeSecret(ctx, args.NodeID, args.SecretID); err != nil {
			return err
		}
		req := &ServiceRegistrationUpsertRequest{Services: args.Services, NodeID: args.NodeID}
		return fill(reply)(e.srv.UpsertServiceRegistrations(ctx, req))
	})
}

// DeregisterServices serves DeleteServiceRegistrationsByAlloc to a client
// agent, for its own node's allocations only.
func (e *clientRPC) DeregisterServices(args *ServiceRegistrationDeleteByAllocRequest, reply *IndexResponse) error {
	return e.srv.serveClient(func(ctx context.Context) error {
		if err := e.srv.checkNodeSecret(ctx, args.NodeID, args.SecretID); err != nil {
			return err
		}
		req := &ServiceRegistrationDeleteByAllocRequest{AllocIDs: args.AllocIDs, NodeID: args.NodeID}
		return fill(reply)(e.srv.DeleteServiceRegistrationsByAlloc(ctx, req))
	})
}

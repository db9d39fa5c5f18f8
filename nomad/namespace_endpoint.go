package nomad

import (
	"context"
	"fmt"

	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/structs"
)

// NamespaceUpsertRequest creates or replaces namespaces.
type NamespaceUpsertRequest struct {
	AuthRequest
	WriteDeadline
	Namespaces []*structs.Namespace
}

// NamespaceDeleteRequest removes namespaces.
type NamespaceDeleteRequest struct {
	AuthRequest
	WriteDeadline
	Names []string
}

// UpsertNamespaces creates or replaces namespaces.
func (s *Server) UpsertNamespaces(ctx context.Context, req *NamespaceUpsertRequest) (*IndexResponse, error) {
	return userWrite(ctx, s, "Namespace.Upsert", req, management, func(ctx context.Context, req *NamespaceUpsertRequest) (*IndexResponse, error) {
		index, err := s.raftApply(ctx, logentry.MsgNamespaceUpsert, &logentry.NamespaceUpsert{Namespaces: req.Namespaces})
		return &IndexResponse{Index: index}, err
	})
}

// DeleteNamespaces removes namespaces. The default namespace, and any
// namespace that still has jobs, cannot be deleted; an unknown name is
// ErrNotFound.
func (s *Server) DeleteNamespaces(ctx context.Context, req *NamespaceDeleteRequest) (*IndexResponse, error) {
	return userWrite(ctx, s, "Namespace.Delete", req, management, s.deleteNamespacesLocal)
}

func (s *Server) deleteNamespacesLocal(ctx context.Context, req *NamespaceDeleteRequest) (*IndexResponse, error) {
	if err := s.leaderBarrier(ctx); err != nil {
		return nil, err
	}
	for _, name := range req.Names {
		if name == structs.DefaultNamespace {
			return nil, invalidf("the default namespace cannot be deleted")
		}
		ns, err := s.State().NamespaceByName(nil, name)
		if err != nil {
			return nil, err
		}
		if ns == nil {
			return nil, fmt.Errorf("namespace %q: %w", name, ErrNotFound)
		}
	}
	// The store checks for jobs where the entry lands, so that a job
	// registered meanwhile keeps its namespace.
	index, err := s.raftApply(ctx, logentry.MsgNamespaceDelete, &logentry.NamespaceDelete{Names: req.Names})
	return &IndexResponse{Index: index}, err
}

// namespaceRPC serves the namespace writes forwarded by other servers.
type namespaceRPC struct{ srv *Server }

// Upsert serves UpsertNamespaces.
func (e *namespaceRPC) Upsert(args *NamespaceUpsertRequest, reply *IndexResponse) error {
	return e.srv.serveUserRPC(args.AuthToken, func(ctx context.Context) error {
		return fill(reply)(e.srv.UpsertNamespaces(ctx, args))
	})
}

// Delete serves DeleteNamespaces.
func (e *namespaceRPC) Delete(args *NamespaceDeleteRequest, reply *IndexResponse) error {
	return e.srv.serveUserRPC(args.AuthToken, func(ctx context.Context) error {
		return fill(reply)(e.srv.DeleteNamespaces(ctx, args))
	})
}

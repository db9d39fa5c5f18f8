package nomad

import (
	"errors"
	"fmt"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// NamespaceUpsertEntry creates or replaces namespaces.
type NamespaceUpsertEntry struct {
	Namespaces []*structs.Namespace
}

func (e *NamespaceUpsertEntry) messageType() MessageType { return MsgNamespaceUpsert }

func (e *NamespaceUpsertEntry) validate() error {
	if len(e.Namespaces) == 0 {
		return invalidf("namespace upsert: no namespaces")
	}
	var errs []error
	for i, ns := range e.Namespaces {
		if ns == nil {
			errs = append(errs, fmt.Errorf("namespace %d is nil", i))
			continue
		}
		errs = append(errs, ns.Validate())
	}
	if err := errors.Join(errs...); err != nil {
		return nomadrpc.WithKind(ErrInvalidRequest, err)
	}
	return nil
}

func (e *NamespaceUpsertEntry) applyTo(s *state.StateStore, index uint64) error {
	return s.UpsertNamespaces(index, e.Namespaces)
}

func (e *NamespaceUpsertEntry) evals() []*structs.Evaluation { return nil }

// NamespaceDeleteEntry removes namespaces. The store refuses the default
// namespace and any namespace that still has jobs, at the point in the
// log where the entry lands.
type NamespaceDeleteEntry struct {
	Names []string
}

func (e *NamespaceDeleteEntry) messageType() MessageType { return MsgNamespaceDelete }

func (e *NamespaceDeleteEntry) validate() error {
	if len(e.Names) == 0 {
		return invalidf("namespace delete: no namespace names")
	}
	return nil
}

func (e *NamespaceDeleteEntry) applyTo(s *state.StateStore, index uint64) error {
	err := s.DeleteNamespaces(index, e.Names)
	if errors.Is(err, state.ErrNamespaceInUse) {
		return nomadrpc.WithKind(ErrInvalidRequest, err)
	}
	return err
}

func (e *NamespaceDeleteEntry) evals() []*structs.Evaluation { return nil }

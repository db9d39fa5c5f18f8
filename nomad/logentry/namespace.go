package logentry

import (
	"errors"
	"fmt"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// NamespaceUpsert creates or replaces namespaces.
type NamespaceUpsert struct {
	Namespaces []*structs.Namespace
}

func (e *NamespaceUpsert) MessageType() MessageType { return MsgNamespaceUpsert }

func (e *NamespaceUpsert) Validate() error {
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
		return nomadrpc.WithKind(nomadrpc.ErrInvalidRequest, err)
	}
	return nil
}

func (e *NamespaceUpsert) ApplyTo(s *state.StateStore, index uint64) error {
	return s.UpsertNamespaces(index, e.Namespaces)
}

func (e *NamespaceUpsert) WrittenEvals() []*structs.Evaluation { return nil }

// NamespaceDelete removes namespaces. The store refuses the default
// namespace and any namespace that still has jobs, at the point in the
// log where the entry lands.
type NamespaceDelete struct {
	Names []string
}

func (e *NamespaceDelete) MessageType() MessageType { return MsgNamespaceDelete }

func (e *NamespaceDelete) Validate() error {
	if len(e.Names) == 0 {
		return invalidf("namespace delete: no namespace names")
	}
	return nil
}

func (e *NamespaceDelete) ApplyTo(s *state.StateStore, index uint64) error {
	err := s.DeleteNamespaces(index, e.Names)
	if errors.Is(err, state.ErrNamespaceInUse) || errors.Is(err, state.ErrNamespaceHasVariables) {
		return nomadrpc.WithKind(nomadrpc.ErrInvalidRequest, err)
	}
	return err
}

func (e *NamespaceDelete) WrittenEvals() []*structs.Evaluation { return nil }

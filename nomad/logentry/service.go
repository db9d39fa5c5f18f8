package logentry

import (
	"errors"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// ServiceRegistrationUpsert stores the service registrations a client
// made for its allocations.
type ServiceRegistrationUpsert struct {
	Services []*structs.ServiceRegistration
}

func (e *ServiceRegistrationUpsert) MessageType() MessageType { return MsgServiceUpsert }

func (e *ServiceRegistrationUpsert) Validate() error {
	if len(e.Services) == 0 {
		return invalidf("service registration upsert: no services")
	}
	var errs []error
	for _, reg := range e.Services {
		errs = append(errs, reg.Validate())
	}
	if err := errors.Join(errs...); err != nil {
		return nomadrpc.WithKind(nomadrpc.ErrInvalidRequest, err)
	}
	return nil
}

func (e *ServiceRegistrationUpsert) ApplyTo(s *state.StateStore, index uint64) error {
	return s.UpsertServiceRegistrations(index, e.Services)
}

func (e *ServiceRegistrationUpsert) WrittenEvals() []*structs.Evaluation { return nil }

// ServiceRegistrationDelete removes either one registration (Namespace
// and ID, an operator's delete) or every registration of AllocIDs (their
// client stopped them).
type ServiceRegistrationDelete struct {
	Namespace string   `json:",omitempty"`
	ID        string   `json:",omitempty"`
	AllocIDs  []string `json:",omitempty"`
}

func (e *ServiceRegistrationDelete) MessageType() MessageType { return MsgServiceDelete }

func (e *ServiceRegistrationDelete) Validate() error {
	byID := e.ID != "" || e.Namespace != ""
	switch {
	case byID && len(e.AllocIDs) > 0:
		return invalidf("service registration delete: names both a registration and allocations")
	case byID && (e.ID == "" || e.Namespace == ""):
		return invalidf("service registration delete: a registration needs both its namespace and ID")
	case !byID && len(e.AllocIDs) == 0:
		return invalidf("service registration delete: names nothing to delete")
	}
	return nil
}

func (e *ServiceRegistrationDelete) ApplyTo(s *state.StateStore, index uint64) error {
	if e.ID == "" {
		return s.DeleteServiceRegistrationsByAlloc(index, e.AllocIDs)
	}
	return s.DeleteServiceRegistration(index, e.Namespace, e.ID)
}

func (e *ServiceRegistrationDelete) WrittenEvals() []*structs.Evaluation { return nil }

package structs

import (
	"errors"
	"fmt"
)

// ServiceRegistration is one service of a running allocation, as its
// client registered it with the servers (Nomad's built-in service
// discovery). Its ID is unique across the cluster: the client derives it
// from the allocation, the task or group and the service's place in it.
type ServiceRegistration struct {
	ID          string
	ServiceName string
	Namespace   string
	NodeID      string
	Datacenter  string
	JobID       string
	AllocID     string
	Tags        []string
	Address     string
	Port        int
	CreateIndex uint64
	ModifyIndex uint64
}

// Validate reports what a registration a client sends lacks.
func (r *ServiceRegistration) Validate() error {
	if r == nil {
		return errors.New("service registration is nil")
	}
	var errs []error
	for _, f := range []struct{ name, value string }{
		{"ID", r.ID}, {"ServiceName", r.ServiceName}, {"Namespace", r.Namespace},
		{"NodeID", r.NodeID}, {"JobID", r.JobID}, {"AllocID", r.AllocID},
	} {
		if f.value == "" {
			errs = append(errs, fmt.Errorf("service registration %q: no %s", r.ID, f.name))
		}
	}
	if r.Port < 0 || r.Port > 65535 {
		errs = append(errs, fmt.Errorf("service registration %q: port %d out of range", r.ID, r.Port))
	}
	return errors.Join(errs...)
}

// Equal reports whether r and o register the same thing, indexes aside.
func (r *ServiceRegistration) Equal(o *ServiceRegistration) bool {
	if r.ID != o.ID || r.ServiceName != o.ServiceName || r.Namespace != o.Namespace ||
		r.NodeID != o.NodeID || r.Datacenter != o.Datacenter || r.JobID != o.JobID ||
		r.AllocID != o.AllocID || r.Address != o.Address || r.Port != o.Port || len(r.Tags) != len(o.Tags) {
		return false
	}
	for i := range r.Tags {
		if r.Tags[i] != o.Tags[i] {
			return false
		}
	}
	return true
}

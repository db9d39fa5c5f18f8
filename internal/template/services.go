package template

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ServiceQuery is one read of Nomad's service registrations.
type ServiceQuery struct {
	Namespace string
	// Name is the service read; empty lists every service of Namespace.
	Name string
	// MinIndex makes the call wait for an answer newer than it; zero
	// answers at once.
	MinIndex uint64
}

// Service is one registration of a service, as nomadService returns it.
type Service struct {
	ID, ServiceName, Namespace, NodeID, Datacenter, JobID, AllocID string
	Tags                                                           []string
	Address                                                        string
	Port                                                           int
}

// ServiceSummary is one service of a namespace, as nomadServices lists
// it: its tags are those of all its registrations.
type ServiceSummary struct {
	Name      string
	Namespace string
	Tags      []string
}

// nomadService returns the registrations of a service of the task's
// namespace, "name" or "tag.name" (only those with the tag), sorted by
// address and port; their change is watched.
func (r *render) nomadService(arg string) ([]Service, error) {
	tag, name := "", arg
	if i := strings.LastIndex(arg, "."); i >= 0 {
		tag, name = arg[:i], arg[i+1:]
	}
	if name == "" {
		return nil, fmt.Errorf("nomadService %q: no service name", arg)
	}
	regs, err := r.services(ServiceQuery{Namespace: r.in.Namespace, Name: name})
	if err != nil {
		return nil, fmt.Errorf("nomadService %q: %w", arg, err)
	}
	out := make([]Service, 0, len(regs))
	for _, s := range regs {
		if tag == "" || slices.Contains(s.Tags, tag) {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b Service) int {
		if c := strings.Compare(a.Address, b.Address); c != 0 {
			return c
		}
		return a.Port - b.Port
	})
	return out, nil
}

// nomadServices lists the services of the task's namespace by name;
// their change is watched.
func (r *render) nomadServices() ([]ServiceSummary, error) {
	regs, err := r.services(ServiceQuery{Namespace: r.in.Namespace})
	if err != nil {
		return nil, fmt.Errorf("nomadServices: %w", err)
	}
	byName := map[string]*ServiceSummary{}
	for _, s := range regs {
		sum := byName[s.ServiceName]
		if sum == nil {
			sum = &ServiceSummary{Name: s.ServiceName, Namespace: s.Namespace}
			byName[s.ServiceName] = sum
		}
		for _, t := range s.Tags {
			if !slices.Contains(sum.Tags, t) {
				sum.Tags = append(sum.Tags, t)
			}
		}
	}
	out := make([]ServiceSummary, 0, len(byName))
	for _, sum := range byName {
		slices.Sort(sum.Tags)
		out = append(out, *sum)
	}
	slices.SortFunc(out, func(a, b ServiceSummary) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// services reads q once per render, and watches it.
func (r *render) services(q ServiceQuery) ([]Service, error) {
	if regs, ok := r.svcReads[q]; ok {
		return regs, nil
	}
	if r.in.Variables == nil {
		return nil, errNoServices
	}
	regs, index, err := r.in.Variables.ReadServices(r.ctx, q)
	if err != nil {
		return nil, err
	}
	r.svcReads[q] = regs
	r.deps = append(r.deps, Dep{Service: true, ServiceQuery: q, Index: index})
	return regs, nil
}

// errNoServices is the error of nomadService and nomadServices where the
// client has no way to read the servers.
var errNoServices = errors.New("this client cannot read Nomad's service registrations")

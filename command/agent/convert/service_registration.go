package convert

import (
	"slices"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-io/drover/structs"
)

// ServiceRegistrationToAPI is a registration as GET /v1/service/:name
// answers it.
func ServiceRegistrationToAPI(r *structs.ServiceRegistration) *api.ServiceRegistration {
	return &api.ServiceRegistration{
		ID:          r.ID,
		ServiceName: r.ServiceName,
		Namespace:   r.Namespace,
		NodeID:      r.NodeID,
		Datacenter:  r.Datacenter,
		JobID:       r.JobID,
		AllocID:     r.AllocID,
		Tags:        slices.Clone(r.Tags),
		Address:     r.Address,
		Port:        r.Port,
		CreateIndex: r.CreateIndex,
		ModifyIndex: r.ModifyIndex,
	}
}

// ServiceRegistrationStubs groups registrations as GET /v1/services
// answers: by namespace, then by service name, each with the union of
// its registrations' tags; namespaces and names sorted.
func ServiceRegistrationStubs(regs []*structs.ServiceRegistration) []*api.ServiceRegistrationListStub {
	type key struct{ ns, name string }
	tags := make(map[key][]string)
	for _, r := range regs {
		k := key{r.Namespace, r.ServiceName}
		seen := tags[k]
		if seen == nil {
			seen = []string{}
		}
		for _, t := range r.Tags {
			if !slices.Contains(seen, t) {
				seen = append(seen, t)
			}
		}
		tags[k] = seen
	}
	keys := make([]key, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.ns != b.ns {
			return strings.Compare(a.ns, b.ns)
		}
		return strings.Compare(a.name, b.name)
	})
	out := []*api.ServiceRegistrationListStub{}
	for _, k := range keys {
		if len(out) == 0 || out[len(out)-1].Namespace != k.ns {
			out = append(out, &api.ServiceRegistrationListStub{Namespace: k.ns})
		}
		last := out[len(out)-1]
		last.Services = append(last.Services, &api.ServiceRegistrationStub{ServiceName: k.name, Tags: tags[k]})
	}
	return out
}

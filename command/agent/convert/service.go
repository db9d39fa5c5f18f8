package convert

import (
	"maps"
	"slices"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

// servicesFromAPI converts a group's or a task's service blocks.
func servicesFromAPI(in []*api.Service) []*structs.Service {
	return convertSlice(in, func(s *api.Service) *structs.Service {
		if s == nil {
			return nil
		}
		return &structs.Service{
			Name:        s.Name,
			Tags:        slices.Clone(s.Tags),
			PortLabel:   s.PortLabel,
			AddressMode: s.AddressMode,
			Address:     s.Address,
			Meta:        maps.Clone(s.Meta),
			TaskName:    s.TaskName,
			Provider:    s.Provider,
			Checks:      checksFromAPI(s.Checks),
		}
	})
}

// servicesToAPI converts a group's or a task's service blocks back.
func servicesToAPI(in []*structs.Service) []*api.Service {
	return convertSlice(in, func(s *structs.Service) *api.Service {
		if s == nil {
			return nil
		}
		return &api.Service{
			Name:        s.Name,
			Tags:        slices.Clone(s.Tags),
			PortLabel:   s.PortLabel,
			AddressMode: s.AddressMode,
			Address:     s.Address,
			Meta:        maps.Clone(s.Meta),
			TaskName:    s.TaskName,
			Provider:    s.Provider,
			Checks:      checksToAPI(s.Checks),
		}
	})
}

func checksFromAPI(in []api.ServiceCheck) []structs.ServiceCheck {
	return convertSlice(in, func(c api.ServiceCheck) structs.ServiceCheck {
		return structs.ServiceCheck(c).Copy()
	})
}

func checksToAPI(in []structs.ServiceCheck) []api.ServiceCheck {
	return convertSlice(in, func(c structs.ServiceCheck) api.ServiceCheck {
		return api.ServiceCheck(c.Copy())
	})
}

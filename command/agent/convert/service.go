package convert

import (
	"maps"
	"slices"
	"time"

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
			Checks:      checksFromAPI(s.Checks, s.CheckRestart),

			CheckRestart: checkRestartFromAPI(s.CheckRestart),
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

			CheckRestart: checkRestartToAPI(s.CheckRestart),
		}
	})
}

// checksFromAPI converts a service's checks; each gets the service's
// check_restart under its own, field by field, before the defaults fill
// what neither set (as Nomad merges them).
func checksFromAPI(in []api.ServiceCheck, restart *api.CheckRestart) []structs.ServiceCheck {
	return convertSlice(in, func(c api.ServiceCheck) structs.ServiceCheck {
		c.CheckRestart = mergeCheckRestart(restart, c.CheckRestart)
		return structs.ServiceCheck{
			Name: c.Name, Type: c.Type, Path: c.Path, Protocol: c.Protocol, PortLabel: c.PortLabel,
			AddressMode: c.AddressMode, Interval: c.Interval, Timeout: c.Timeout,
			InitialStatus: c.InitialStatus, TLSServerName: c.TLSServerName, TLSSkipVerify: c.TLSSkipVerify,
			Method: c.Method, Header: cloneHeader(c.Header), Body: c.Body,
			Command: c.Command, Args: slices.Clone(c.Args), TaskName: c.TaskName,
			SuccessBeforePassing: c.SuccessBeforePassing, FailuresBeforeCritical: c.FailuresBeforeCritical,
			FailuresBeforeWarning: c.FailuresBeforeWarning, OnUpdate: c.OnUpdate,
			CheckRestart: checkRestartFromAPI(c.CheckRestart),
		}
	})
}

func checksToAPI(in []structs.ServiceCheck) []api.ServiceCheck {
	return convertSlice(in, func(c structs.ServiceCheck) api.ServiceCheck {
		return api.ServiceCheck{
			Name: c.Name, Type: c.Type, Path: c.Path, Protocol: c.Protocol, PortLabel: c.PortLabel,
			AddressMode: c.AddressMode, Interval: c.Interval, Timeout: c.Timeout,
			InitialStatus: c.InitialStatus, TLSServerName: c.TLSServerName, TLSSkipVerify: c.TLSSkipVerify,
			Method: c.Method, Header: cloneHeader(c.Header), Body: c.Body,
			Command: c.Command, Args: slices.Clone(c.Args), TaskName: c.TaskName,
			SuccessBeforePassing: c.SuccessBeforePassing, FailuresBeforeCritical: c.FailuresBeforeCritical,
			FailuresBeforeWarning: c.FailuresBeforeWarning, OnUpdate: c.OnUpdate,
			CheckRestart: checkRestartToAPI(c.CheckRestart),
		}
	})
}

func cloneHeader(h map[string][]string) map[string][]string {
	if h == nil {
		return nil
	}
	out := make(map[string][]string, len(h))
	for k, v := range h {
		out[k] = slices.Clone(v)
	}
	return out
}

// checkRestartFromAPI converts a check_restart block; an unset grace is
// Nomad's default, 1s.
func checkRestartFromAPI(in *api.CheckRestart) *structs.CheckRestart {
	if in == nil {
		return nil
	}
	out := &structs.CheckRestart{Limit: in.Limit, IgnoreWarnings: in.IgnoreWarnings, Grace: time.Second}
	if in.Grace != nil {
		out.Grace = *in.Grace
	}
	return out
}

func mergeCheckRestart(service, check *api.CheckRestart) *api.CheckRestart {
	if service == nil {
		return check
	}
	out := *service
	if check == nil {
		return &out
	}
	if check.Limit > 0 {
		out.Limit = check.Limit
	}
	if check.Grace != nil {
		out.Grace = check.Grace
	}
	if check.IgnoreWarnings {
		out.IgnoreWarnings = true
	}
	return &out
}

func checkRestartToAPI(in *structs.CheckRestart) *api.CheckRestart {
	if in == nil {
		return nil
	}
	grace := in.Grace
	return &api.CheckRestart{Limit: in.Limit, Grace: &grace, IgnoreWarnings: in.IgnoreWarnings}
}

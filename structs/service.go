package structs

import (
	"maps"
	"slices"
	"time"
)

// Service providers. Nomad's default, when a service sets none, is
// Consul; Drover has no Consul integration and keeps every service, of
// either provider, in its own catalog (docs: job-specification/service).
const (
	ServiceProviderNomad  = "nomad"
	ServiceProviderConsul = "consul"
)

// Address modes of a service: where its address and port come from.
const (
	AddressModeAuto   = "auto"
	AddressModeHost   = "host"
	AddressModeDriver = "driver"
	AddressModeAlloc  = "alloc"
)

// MaxServicesPerGroup bounds the service blocks of a group and its tasks
// together: each becomes a registration a client keeps up to date.
const MaxServicesPerGroup = 64

// MaxChecksPerService bounds a service's checks, each a probe a client
// runs.
const MaxChecksPerService = 16

// Service is a group's or a task's service block: a name under which the
// allocation's address and port are registered while it runs.
type Service struct {
	// Name is the service's name; canonicalisation fills in Nomad's
	// default, "<job>-<group>" or "<job>-<group>-<task>".
	Name string
	Tags []string
	// PortLabel is a port label of the group's network block, or a port
	// number with AddressMode driver or alloc.
	PortLabel   string
	AddressMode string
	// Address, with AddressMode auto only, is registered instead of the
	// allocation's.
	Address string
	Meta    map[string]string
	// TaskName, in a group's service, names the task whose address it is.
	TaskName string
	// Provider is ServiceProviderNomad or ServiceProviderConsul (also
	// when empty, as in Nomad, so that the job reads back as written).
	Provider string
	// Checks are the service's check blocks. Drover does not run them
	// yet (a warning at submit says so).
	Checks []ServiceCheck `json:",omitempty"`
}

// Copy returns a deep copy of the service.
func (s *Service) Copy() *Service {
	if s == nil {
		return nil
	}
	c := *s
	c.Tags = slices.Clone(s.Tags)
	c.Meta = maps.Clone(s.Meta)
	if s.Checks != nil {
		c.Checks = make([]ServiceCheck, len(s.Checks))
		for i, check := range s.Checks {
			c.Checks[i] = check.Copy()
		}
	}
	return &c
}

// canonicalizeServices gives each unnamed service Nomad's default name:
// base ("<job>-<group>", with "-<task>" for a task's).
func canonicalizeServices(services []*Service, base string) {
	for _, s := range services {
		if s != nil && s.Name == "" {
			s.Name = base
		}
	}
}

// Check types Drover accepts: those of Nomad's own provider.
const (
	CheckTypeHTTP = "http"
	CheckTypeTCP  = "tcp"
)

// ServiceCheck is a service's check block: an http or tcp probe of the
// service's address, every Interval, failing after Timeout.
type ServiceCheck struct {
	Name string
	Type string
	// Path, Method, Header, Body and Protocol (http or https) shape an
	// http check's request.
	Path     string
	Protocol string
	// PortLabel, when set, is probed instead of the service's port.
	PortLabel     string
	AddressMode   string
	Interval      time.Duration
	Timeout       time.Duration
	InitialStatus string
	TLSServerName string
	TLSSkipVerify bool
	Method        string
	Header        map[string][]string
	Body          string
}

// Copy returns a deep copy of the check.
func (c ServiceCheck) Copy() ServiceCheck {
	if c.Header != nil {
		h := make(map[string][]string, len(c.Header))
		for k, v := range c.Header {
			h[k] = slices.Clone(v)
		}
		c.Header = h
	}
	return c
}

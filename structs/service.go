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
	// Checks are the service's check blocks, run by the client of the
	// allocation (package client/servicecheck).
	Checks []ServiceCheck `json:",omitempty"`
	// CheckRestart is the default of each check's CheckRestart;
	// canonicalisation merges it into them.
	CheckRestart *CheckRestart `json:",omitempty"`
}

// Copy returns a deep copy of the service.
func (s *Service) Copy() *Service {
	if s == nil {
		return nil
	}
	c := *s
	c.Tags = slices.Clone(s.Tags)
	c.Meta = maps.Clone(s.Meta)
	c.CheckRestart = s.CheckRestart.Copy()
	if s.Checks != nil {
		c.Checks = make([]ServiceCheck, len(s.Checks))
		for i, check := range s.Checks {
			c.Checks[i] = check.Copy()
		}
	}
	return &c
}

// canonicalizeServices gives each unnamed service Nomad's default name:
// base ("<job>-<group>", with "-<task>" for a task's). Each check gets
// the service's check_restart under its own (its fields win) and, in a
// group's service, the service's task when it names none, as in Nomad.
func canonicalizeServices(services []*Service, base string) {
	for _, s := range services {
		if s == nil {
			continue
		}
		if s.Name == "" {
			s.Name = base
		}
		for i := range s.Checks {
			c := &s.Checks[i]
			c.CheckRestart = s.CheckRestart.merge(c.CheckRestart)
			if c.TaskName == "" {
				c.TaskName = s.TaskName
			}
		}
	}
}

// Check types Drover runs.
const (
	CheckTypeHTTP   = "http"
	CheckTypeTCP    = "tcp"
	CheckTypeScript = "script"
)

// CheckRestart is a check_restart block: restart the task once its check
// has been unhealthy Limit times in a row, not counting results within
// Grace of the task's start.
type CheckRestart struct {
	// Limit is the number of consecutive unhealthy results that restart
	// the task; 0 never restarts it.
	Limit int
	Grace time.Duration
	// IgnoreWarnings counts only critical results as unhealthy.
	IgnoreWarnings bool
}

// Copy returns a copy of c.
func (c *CheckRestart) Copy() *CheckRestart {
	if c == nil {
		return nil
	}
	cp := *c
	return &cp
}

// merge is c with o's set fields over it (o is a check's block, c its
// service's).
func (c *CheckRestart) merge(o *CheckRestart) *CheckRestart {
	if c == nil {
		return o.Copy()
	}
	out := c.Copy()
	if o == nil {
		return out
	}
	if o.Limit > 0 {
		out.Limit = o.Limit
	}
	if o.Grace > 0 {
		out.Grace = o.Grace
	}
	if o.IgnoreWarnings {
		out.IgnoreWarnings = true
	}
	return out
}

// ServiceCheck is a service's check block: an http or tcp probe of the
// service's address, or a script run in the task, every Interval, failing
// after Timeout.
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
	// Command and Args are a script check's program and arguments, run
	// in TaskName (a group service's check: the service's task by
	// default) through its driver.
	Command  string
	Args     []string
	TaskName string
	// SuccessBeforePassing and FailuresBeforeCritical (and
	// FailuresBeforeWarning) are how many results in a row change the
	// check's status; 0 and 1 alike change it at the first.
	SuccessBeforePassing   int
	FailuresBeforeCritical int
	FailuresBeforeWarning  int
	// OnUpdate is how a deployment counts the check ("require_healthy",
	// "ignore_warnings" or "ignore"); "ignore" makes it a readiness
	// check in its status.
	OnUpdate     string
	CheckRestart *CheckRestart `json:",omitempty"`
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
	c.Args = slices.Clone(c.Args)
	c.CheckRestart = c.CheckRestart.Copy()
	return c
}

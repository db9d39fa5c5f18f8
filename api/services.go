package api

import "time"

// Service is a group's or a task's service block: a name, with the
// address and port of the allocation it runs in, that Drover registers in
// its own catalog. The names are those of Nomad's Service; the Consul-only
// fields Nomad has are in api/unsupported's table.
type Service struct {
	Name string
	Tags []string
	// PortLabel is a port label of the group's network block, or a port
	// number with address_mode "driver" or "alloc".
	PortLabel   string
	AddressMode string
	Address     string
	Meta        map[string]string
	// TaskName, in a group's service, names the task whose address it is.
	TaskName string
	// Provider is "nomad" or "consul" (Nomad's default when empty): Drover
	// keeps both in its own catalog.
	Provider string
	// Checks are the service's check blocks.
	Checks []ServiceCheck `json:",omitempty"`
	// CheckRestart is the default check_restart of the service's checks.
	CheckRestart *CheckRestart `json:",omitempty"`
}

// ServiceCheck is a service's check block: an http or tcp probe of the
// service's address, or a script run in a task. The names are those of
// Nomad's ServiceCheck.
type ServiceCheck struct {
	Name          string
	Type          string
	Path          string
	Protocol      string
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
	// Command, Args and TaskName are a script check's.
	Command                string
	Args                   []string
	TaskName               string
	SuccessBeforePassing   int
	FailuresBeforeCritical int
	FailuresBeforeWarning  int
	OnUpdate               string
	CheckRestart           *CheckRestart `json:",omitempty"`
}

// CheckRestart is a check_restart block: restart the task after Limit
// unhealthy results in a row, past Grace from its start.
type CheckRestart struct {
	Limit          int
	Grace          *time.Duration
	IgnoreWarnings bool
}

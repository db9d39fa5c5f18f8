package structs

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// isServiceName reports whether name is an RFC 1123 label, as Nomad holds
// service names to: 1 to 63 letters, digits and hyphens, with no hyphen
// first or last. (A regexp of it, with its bounded repetition, would cost
// every process of the binary 48 KB at start: see init_cost_test.go.)
func isServiceName(name string) bool {
	if len(name) == 0 || len(name) > 63 || name[0] == '-' || name[len(name)-1] == '-' {
		return false
	}
	for _, c := range []byte(name) {
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && c != '-' {
			return false
		}
	}
	return true
}

// validateServices checks the service blocks of a group and of its tasks:
// the one place their rules live. Task services are checked here, not in
// the task, because their ports are the group's.
func (tg *TaskGroup) validateServices(p *problems, where string) {
	ports := map[string]bool{}
	for _, n := range tg.Networks {
		if n == nil {
			continue
		}
		for _, port := range append(append([]Port(nil), n.ReservedPorts...), n.DynamicPorts...) {
			ports[port.Label] = true
		}
	}
	tasks := map[string]bool{}
	total := len(tg.Services)
	for _, t := range tg.Tasks {
		if t != nil {
			tasks[t.Name] = true
			total += len(t.Services)
		}
	}
	if total > MaxServicesPerGroup {
		p.add(where, "a group and its tasks may have at most %d service blocks, got %d", MaxServicesPerGroup, total)
		return
	}
	providers := map[string]string{}
	validateServiceList(p, where, tg.Services, ports, providers, func(s *Service) string {
		if s.TaskName != "" && !tasks[s.TaskName] {
			return fmt.Sprintf("task %q is not a task of the group", s.TaskName)
		}
		return ""
	})
	for i, t := range tg.Tasks {
		if t == nil {
			continue
		}
		validateServiceList(p, taskWhere(where, i, t), t.Services, ports, providers, func(s *Service) string {
			if s.TaskName != "" && s.TaskName != t.Name {
				return fmt.Sprintf("task %q: a task's service belongs to the task itself", s.TaskName)
			}
			return ""
		})
	}
	if len(providers) > 1 {
		p.add(where, "services of one group must all have the same provider, got %s", strings.Join(sortedKeys(providers), " and "))
	}
}

// validateServiceList checks one block's services. providers collects the
// provider each service uses, across the group.
func validateServiceList(p *problems, where string, services []*Service, ports map[string]bool,
	providers map[string]string, checkTask func(*Service) string) {
	seen := map[string]bool{}
	for i, s := range services {
		at := fmt.Sprintf("%s service #%d", where, i+1)
		if s == nil {
			p.add(at, "service block must not be null")
			continue
		}
		if s.Name != "" {
			at = fmt.Sprintf("%s service %q", where, s.Name)
		}
		validateService(p, at, s, ports)
		if problem := checkTask(s); problem != "" {
			p.add(at, "%s", problem)
		}
		key := s.Name + "\x00" + s.PortLabel
		if seen[key] {
			p.add(at, "service is defined twice with port %q", s.PortLabel)
		}
		seen[key] = true
		providers[s.providerOrDefault()] = s.Name
	}
}

func validateService(p *problems, at string, s *Service, ports map[string]bool) {
	// A name holding ${...} is interpolated on the client, where it is
	// checked again before it is registered.
	if !strings.Contains(s.Name, "${") && !isServiceName(s.Name) {
		p.add(at, "service name %q must be 1 to 63 letters, digits and '-', not starting or ending with '-' (RFC 1123)", s.Name)
	}
	switch s.Provider {
	case "", ServiceProviderNomad, ServiceProviderConsul:
	default:
		p.add(at, "provider must be %q or %q, got %q", ServiceProviderNomad, ServiceProviderConsul, s.Provider)
	}
	mode := s.AddressMode
	switch mode {
	case "", AddressModeAuto, AddressModeHost, AddressModeDriver, AddressModeAlloc:
	default:
		p.add(at, "address_mode must be %q, %q, %q or %q, got %q", AddressModeAuto, AddressModeHost, AddressModeDriver, AddressModeAlloc, mode)
	}
	if s.Address != "" && mode != "" && mode != AddressModeAuto {
		p.add(at, "address may be set only with address_mode %q, got %q", AddressModeAuto, mode)
	}
	if problem := printableProblem(s.Address); problem != "" {
		p.add(at, "address %s", problem)
	}
	validateServicePort(p, at, s.PortLabel, mode, ports)
	for _, tag := range s.Tags {
		if problem := printableProblem(tag); problem != "" || tag == "" {
			p.add(at, "tag %q must be non-empty and printable", tag)
		}
	}
	validateMetaKeys(p, at, s.Meta)
	if len(s.Checks) > MaxChecksPerService {
		p.add(at, "a service may have at most %d checks, got %d", MaxChecksPerService, len(s.Checks))
		return
	}
	for i, c := range s.Checks {
		validateCheck(p, fmt.Sprintf("%s check #%d", at, i+1), c, ports)
	}
}

// validateCheck checks one of a service's checks: an http or tcp probe,
// the kinds Nomad's own provider runs.
func validateCheck(p *problems, at string, c ServiceCheck, ports map[string]bool) {
	switch c.Type {
	case CheckTypeHTTP:
		if c.Path == "" {
			p.add(at, "an http check needs a path")
		}
		if c.Protocol != "" && c.Protocol != "http" && c.Protocol != "https" {
			p.add(at, "protocol must be \"http\" or \"https\", got %q", c.Protocol)
		}
	case CheckTypeTCP:
	case "script", "grpc":
		p.add(at, "type %q: Drover runs %q and %q checks only", c.Type, CheckTypeHTTP, CheckTypeTCP)
	default:
		p.add(at, "type must be %q or %q, got %q", CheckTypeHTTP, CheckTypeTCP, c.Type)
	}
	if c.Interval < time.Second {
		p.add(at, "interval must be at least 1s, got %s", c.Interval)
	}
	if c.Timeout < time.Second {
		p.add(at, "timeout must be at least 1s, got %s", c.Timeout)
	}
	switch c.InitialStatus {
	case "", "passing", "warning", "critical":
	default:
		p.add(at, "initial_status must be \"passing\", \"warning\" or \"critical\", got %q", c.InitialStatus)
	}
	for _, v := range []string{c.Path, c.Method, c.TLSServerName} {
		if problem := printableProblem(v); problem != "" {
			p.add(at, "%q %s", v, problem)
		}
	}
	for name := range c.Header {
		if problem := printableProblem(name); problem != "" || name == "" {
			p.add(at, "header name %q must be non-empty and printable", name)
		}
	}
	validateServicePort(p, at, c.PortLabel, c.AddressMode, ports)
}

// validateServicePort: a label must be one of the group's ports; a number
// is a port inside the task's own network, which only the driver and alloc
// address modes register.
func validateServicePort(p *problems, at, port, mode string, ports map[string]bool) {
	if port == "" || strings.Contains(port, "${") {
		return
	}
	if n, err := strconv.Atoi(port); err == nil {
		if n < 1 || n > MaxPort {
			p.add(at, "port %d must be between 1 and %d", n, MaxPort)
		} else if mode != AddressModeDriver && mode != AddressModeAlloc {
			p.add(at, "port %q is a number: give a port label of the group's network block, or set address_mode = %q or %q", port, AddressModeDriver, AddressModeAlloc)
		}
		return
	}
	if !ports[port] {
		p.add(at, "port %q is not a port label of the group's network block", port)
	}
}

func (s *Service) providerOrDefault() string {
	if s.Provider == "" {
		return ServiceProviderConsul
	}
	return s.Provider
}

// serviceWarnings names, for the answer to a submit, what Drover does with
// the job's services differently from Nomad: it registers them, but does
// not run their checks yet.
func (j *Job) serviceWarnings() []string {
	var out []string
	for i, tg := range j.TaskGroups {
		if tg == nil {
			continue
		}
		checks := countChecks(tg.Services)
		for _, t := range tg.Tasks {
			if t != nil {
				checks += countChecks(t.Services)
			}
		}
		if checks > 0 {
			out = append(out, fmt.Sprintf("%s: Drover does not run service checks yet: its %d check block(s) are validated and kept in the job, and its services are registered whatever the checks would say", groupWhere(i, tg), checks))
		}
	}
	return out
}

func countChecks(services []*Service) int {
	n := 0
	for _, s := range services {
		if s != nil {
			n += len(s.Checks)
		}
	}
	return n
}

package structs

import (
	"fmt"
	"slices"
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
	tasks := map[string]*Task{}
	total := len(tg.Services)
	for _, t := range tg.Tasks {
		if t != nil {
			tasks[t.Name] = t
			total += len(t.Services)
		}
	}
	if total > MaxServicesPerGroup {
		p.add(where, "a group and its tasks may have at most %d service blocks, got %d", MaxServicesPerGroup, total)
		return
	}
	providers := map[string]string{}
	validateServiceList(p, where, tg.Services, ports, providers, nil, tasks, func(s *Service) string {
		if s.TaskName != "" && tasks[s.TaskName] == nil {
			return fmt.Sprintf("task %q is not a task of the group", s.TaskName)
		}
		return ""
	})
	for i, t := range tg.Tasks {
		if t == nil {
			continue
		}
		validateServiceList(p, taskWhere(where, i, t), t.Services, ports, providers, t, tasks, func(s *Service) string {
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
	providers map[string]string, task *Task, tasks map[string]*Task, checkTask func(*Service) string) {
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
		validateService(p, at, s, ports, task, tasks)
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

func validateService(p *problems, at string, s *Service, ports map[string]bool, task *Task, tasks map[string]*Task) {
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
		if c.TaskName == "" && task == nil {
			c.TaskName = s.TaskName // as canonicalisation fills it in
		}
		validateCheck(p, fmt.Sprintf("%s check #%d", at, i+1), c, ports, task, tasks)
	}
}

// validateCheck checks one of a service's checks: an http or tcp probe,
// or a script run in a task. task is the task whose service it is (nil
// for a group's), tasks the group's tasks by name.
func validateCheck(p *problems, at string, c ServiceCheck, ports map[string]bool, task *Task, tasks map[string]*Task) {
	switch c.Type {
	case CheckTypeHTTP:
		if c.Path == "" {
			p.add(at, "an http check needs a path")
		}
		if c.Protocol != "" && c.Protocol != "http" && c.Protocol != "https" {
			p.add(at, "protocol must be \"http\" or \"https\", got %q", c.Protocol)
		}
	case CheckTypeTCP:
	case CheckTypeScript:
		validateScriptCheck(p, at, c, task, tasks)
	case "grpc":
		p.add(at, "type %q: Drover runs %q, %q and %q checks only", c.Type, CheckTypeHTTP, CheckTypeTCP, CheckTypeScript)
	default:
		p.add(at, "type must be %q, %q or %q, got %q", CheckTypeHTTP, CheckTypeTCP, CheckTypeScript, c.Type)
	}
	if c.Type != CheckTypeScript && (c.Command != "" || len(c.Args) > 0) {
		p.add(at, "command and args are for script checks only, not %q", c.Type)
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
	switch c.OnUpdate {
	case "", "require_healthy", "ignore_warnings", "ignore":
	default:
		p.add(at, "on_update must be \"require_healthy\", \"ignore_warnings\" or \"ignore\", got %q", c.OnUpdate)
	}
	for _, f := range []struct {
		name string
		n    int
	}{{"success_before_passing", c.SuccessBeforePassing}, {"failures_before_critical", c.FailuresBeforeCritical}, {"failures_before_warning", c.FailuresBeforeWarning}} {
		if f.n < 0 || f.n > MaxCheckThreshold {
			p.add(at, "%s must be between 0 and %d, got %d", f.name, MaxCheckThreshold, f.n)
		}
	}
	if c.FailuresBeforeWarning > 0 && c.FailuresBeforeCritical > 0 && c.FailuresBeforeWarning > c.FailuresBeforeCritical {
		p.add(at, "failures_before_warning (%d) must not exceed failures_before_critical (%d)", c.FailuresBeforeWarning, c.FailuresBeforeCritical)
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
	if c.Type != CheckTypeScript {
		validateServicePort(p, at, c.PortLabel, c.AddressMode, ports)
	}
	validateCheckRestart(p, at, c, task)
}

// MaxCheckThreshold bounds success_before_passing and the failures_before
// counts: a check's status could otherwise never change.
const MaxCheckThreshold = 1000

// validateScriptCheck: a script runs in a task, which its driver must be
// able to run a command in.
func validateScriptCheck(p *problems, at string, c ServiceCheck, task *Task, tasks map[string]*Task) {
	if c.Command == "" {
		p.add(at, "a script check needs a command")
	}
	if problem := printableProblem(c.Command); problem != "" {
		p.add(at, "command %s", problem)
	}
	runsIn := task
	if runsIn == nil {
		if c.TaskName == "" {
			p.add(at, "a script check of a group's service must name the task it runs in (task, of the check or of the service)")
			return
		}
		runsIn = tasks[c.TaskName]
		if runsIn == nil {
			p.add(at, "task %q is not a task of the group", c.TaskName)
			return
		}
	} else if c.TaskName != "" && c.TaskName != task.Name {
		p.add(at, "task %q: a task's service checks run in the task itself", c.TaskName)
	}
	if !slices.Contains(ExecDrivers, runsIn.Driver) {
		p.add(at, "a script check runs in task %q, whose driver %q cannot run a command in a task (drivers that can: %s)", runsIn.Name, runsIn.Driver, strings.Join(ExecDrivers, ", "))
	}
}

// validateCheckRestart: a restart needs a task to restart.
func validateCheckRestart(p *problems, at string, c ServiceCheck, task *Task) {
	r := c.CheckRestart
	if r == nil {
		return
	}
	if r.Limit < 0 {
		p.add(at, "check_restart limit must not be negative, got %d", r.Limit)
	}
	if r.Grace < 0 {
		p.add(at, "check_restart grace must not be negative, got %s", r.Grace)
	}
	if r.Limit > 0 && task == nil && c.TaskName == "" {
		p.add(at, "check_restart in a group's service needs the task to restart: set task on the service or the check")
	}
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

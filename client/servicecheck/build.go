package servicecheck

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/drover-io/drover/internal/netguard"
	"github.com/drover-io/drover/structs"
)

// Owner is whose checks Build builds: a task's (its services' checks and
// those of the group's services that name it), or, with Task nil, the
// group's checks that belong to no task.
type Owner struct {
	Alloc *structs.Allocation
	Task  *structs.Task
	// Env interpolates ${...} in the checks' fields, as the services'.
	Env func(string) string
	// Exec runs a script check's command in the task; nil when its driver
	// cannot.
	Exec ExecFunc
	// Guard is the client's address policy (netguard), which an http or
	// tcp check is held to when the job names where it connects (a
	// service's address, a port that is not one of the allocation's):
	// the job author is not trusted with the client's network. A check
	// of the allocation's own port at its own address is not held to it.
	// Nil is netguard.DefaultPolicy.
	Guard *netguard.Policy
}

// Build returns the owner's checks, ready to run. A check whose address
// cannot be resolved is still built: its probe fails, saying why, so
// that its status shows it.
func Build(o Owner) []*Check {
	tg := o.Alloc.LookupTaskGroup()
	if tg == nil {
		return nil
	}
	env := o.Env
	if env == nil {
		env = func(s string) string { return s }
	}
	var out []*Check
	add := func(svc *structs.Service, owner string) {
		for i, def := range svc.Checks {
			task := def.TaskName
			if task == "" && owner == "" {
				task = svc.TaskName
			}
			if owner != "" {
				task = owner
			}
			if o.Task == nil && task != "" || o.Task != nil && task != o.Task.Name {
				continue
			}
			out = append(out, build(o, tg, svc, def, i, task, env))
		}
	}
	for _, svc := range tg.Services {
		if svc != nil {
			add(svc, "")
		}
	}
	if o.Task != nil {
		for _, svc := range o.Task.Services {
			if svc != nil {
				add(svc, o.Task.Name)
			}
		}
	}
	return out
}

func build(o Owner, tg *structs.TaskGroup, svc *structs.Service, def structs.ServiceCheck, i int, task string, env func(string) string) *Check {
	service := env(svc.Name)
	name := env(def.Name)
	if name == "" {
		name = fmt.Sprintf("service: %q check", service)
	}
	owner := task
	if o.Task == nil || !containsService(o.Task.Services, svc) {
		owner = "group-" + tg.Name
	}
	c := &Check{
		ID:       checkID(o.Alloc.ID, owner, service, svc.PortLabel, name, strconv.Itoa(i)),
		Name:     name,
		Service:  service,
		Task:     task,
		Group:    o.Alloc.Name,
		Mode:     ModeHealthiness,
		Interval: def.Interval,
		Timeout:  def.Timeout,
		Initial:  Health(def.InitialStatus),
		thresholds: thresholds{
			successBeforePassing:   def.SuccessBeforePassing,
			failuresBeforeWarning:  def.FailuresBeforeWarning,
			failuresBeforeCritical: def.FailuresBeforeCritical,
		},
		Restart: def.CheckRestart.Copy(),
	}
	if def.OnUpdate == "ignore" {
		c.Mode = ModeReadiness
	}
	c.Probe = probe(o, svc, def, env)
	return c
}

func containsService(services []*structs.Service, svc *structs.Service) bool {
	for _, s := range services {
		if s == svc {
			return true
		}
	}
	return false
}

// probe builds the check's prober.
func probe(o Owner, svc *structs.Service, def structs.ServiceCheck, env func(string) string) Prober {
	if def.Type == structs.CheckTypeScript {
		cmd := []string{env(def.Command)}
		for _, a := range def.Args {
			cmd = append(cmd, env(a))
		}
		return ScriptProbe{Command: cmd, Timeout: def.Timeout, Exec: o.Exec}
	}
	addr, own, err := address(o.Alloc, svc, def, env)
	if err != nil {
		return failingProbe{fmt.Sprintf("nomad: %s check of service %q: %v", def.Type, env(svc.Name), err)}
	}
	var control DialControl
	if !own {
		guard := o.Guard
		if guard == nil {
			guard = netguard.DefaultPolicy()
		}
		control = guard.DialControl
	}
	if def.Type == structs.CheckTypeTCP {
		return TCPProbe{Addr: addr, Control: control}
	}
	scheme := def.Protocol
	if scheme == "" {
		scheme = "http"
	}
	base := &url.URL{Scheme: scheme, Host: addr}
	ref, err := url.Parse(env(def.Path))
	if err != nil {
		return failingProbe{fmt.Sprintf("nomad: http check path %q: %v", def.Path, err)}
	}
	header := make(map[string][]string, len(def.Header))
	for k, vs := range def.Header {
		for _, v := range vs {
			header[k] = append(header[k], env(v))
		}
	}
	return HTTPProbe{
		URL: base.ResolveReference(ref).String(), Method: def.Method, Header: header, Body: env(def.Body),
		TLSSkipVerify: def.TLSSkipVerify, TLSServerName: def.TLSServerName, Control: control,
	}
}

// address is where an http or tcp check connects: the check's port
// label, or else the service's, at the allocation's host address and
// host port (address_mode "host", the default), or at its port inside
// the allocation ("driver", "alloc"). A service's own address, with
// address_mode "auto", is a check's too when the check sets no mode. own
// reports that the address is the allocation's: one of its ports at its
// own address, not a place the job named.
func address(alloc *structs.Allocation, svc *structs.Service, def structs.ServiceCheck, env func(string) string) (addr string, own bool, err error) {
	label := env(def.PortLabel)
	if label == "" {
		label = env(svc.PortLabel)
	}
	if label == "" {
		return "", false, fmt.Errorf("no port: set port on the check or its service")
	}
	mode := def.AddressMode
	host, port := "", 0
	for _, p := range alloc.PortMappings() {
		if p.Label == label {
			own = true
			host, port = p.HostIP, p.Value
			if mode == structs.AddressModeDriver || mode == structs.AddressModeAlloc {
				port = p.To
			}
			break
		}
	}
	if port == 0 {
		n, err := strconv.Atoi(label)
		if err != nil {
			return "", false, fmt.Errorf("port %q is not a port label of the allocation", label)
		}
		port = n
	}
	if host == "" {
		for _, n := range alloc.Networks {
			if n != nil && n.IP != "" {
				host = n.IP
				break
			}
		}
	}
	if mode == "" && svc.Address != "" && (svc.AddressMode == "" || svc.AddressMode == structs.AddressModeAuto) {
		host, own = env(svc.Address), false
	}
	if host == "" {
		return "", false, fmt.Errorf("the allocation has no address")
	}
	return net.JoinHostPort(strings.Trim(host, "[]"), strconv.Itoa(port)), own, nil
}

// failingProbe is a check that cannot run: each probe fails with why.
type failingProbe struct{ why string }

func (p failingProbe) Probe(ctx context.Context) Result {
	return Result{Health: Critical, Output: cut(p.why)}
}

package client

import (
	"fmt"
	"strconv"

	"github.com/drover-io/drover/client/allocrunner/taskrunner"
	"github.com/drover-io/drover/structs"
)

// wantedServices is what an allocation should have registered, given its
// client state: its group's services while any of its tasks runs, and
// each task's services while that task runs; nothing once the client is
// done with it.
func wantedServices(alloc *structs.Allocation, node *structs.Node) []*structs.ServiceRegistration {
	if alloc.ClientTerminalStatus() {
		return nil
	}
	tg := alloc.LookupTaskGroup()
	if tg == nil {
		return nil
	}
	running := func(task string) bool {
		s := alloc.TaskStates[task]
		return s != nil && s.State == structs.TaskStateRunning
	}
	var out []*structs.ServiceRegistration
	anyRunning := false
	for _, task := range tg.Tasks {
		if !running(task.Name) {
			continue
		}
		anyRunning = true
		env := taskrunner.ServiceInterpolator(alloc, task, node)
		for _, svc := range task.Services {
			out = append(out, registration(alloc, node, svc, task.Name, env))
		}
	}
	if anyRunning {
		env := taskrunner.ServiceInterpolator(alloc, nil, node)
		for _, svc := range tg.Services {
			out = append(out, registration(alloc, node, svc, "group-"+tg.Name, env))
		}
	}
	return out
}

// hasServices reports whether alloc's group or any of its tasks has a
// service block.
func hasServices(alloc *structs.Allocation) bool {
	tg := alloc.LookupTaskGroup()
	if tg == nil {
		return false
	}
	if len(tg.Services) > 0 {
		return true
	}
	for _, t := range tg.Tasks {
		if len(t.Services) > 0 {
			return true
		}
	}
	return false
}

// registration is svc of alloc as it is registered; owner is the task's
// name, or "group-<name>" for a group's service, and goes in the ID with
// the service's name and port label, as Nomad's IDs have them.
func registration(alloc *structs.Allocation, node *structs.Node, svc *structs.Service, owner string, env func(string) string) *structs.ServiceRegistration {
	name := env(svc.Name)
	address, port := serviceAddress(alloc, svc)
	tags := make([]string, 0, len(svc.Tags))
	for _, t := range svc.Tags {
		tags = append(tags, env(t))
	}
	reg := &structs.ServiceRegistration{
		ID:          fmt.Sprintf("_nomad-task-%s-%s-%s-%s", alloc.ID, owner, name, svc.PortLabel),
		ServiceName: name,
		Namespace:   alloc.Namespace,
		NodeID:      alloc.NodeID,
		JobID:       alloc.JobID,
		AllocID:     alloc.ID,
		Tags:        tags,
		Address:     address,
		Port:        port,
	}
	if node != nil {
		reg.Datacenter = node.Datacenter
	}
	return reg
}

// serviceAddress resolves a service's port label to the host address and
// port the scheduler gave the allocation (its AllocatedResources.Shared
// ports). A numeric port, which address modes driver and alloc allow,
// is taken as written, at the allocation's address; an explicit address
// (address mode auto) wins over the allocation's.
func serviceAddress(alloc *structs.Allocation, svc *structs.Service) (string, int) {
	address, port := allocAddress(alloc), 0
	if svc.PortLabel != "" {
		for _, p := range alloc.PortMappings() {
			if p.Label == svc.PortLabel {
				address, port = p.HostIP, p.Value
				if svc.AddressMode == structs.AddressModeDriver || svc.AddressMode == structs.AddressModeAlloc {
					port = p.To
				}
				break
			}
		}
		if n, err := strconv.Atoi(svc.PortLabel); err == nil && port == 0 {
			port = n
		}
	}
	if svc.Address != "" {
		address = svc.Address
	}
	return address, port
}

// allocAddress is the allocation's host address: its first network's.
func allocAddress(alloc *structs.Allocation) string {
	for _, n := range alloc.Networks {
		if n != nil && n.IP != "" {
			return n.IP
		}
	}
	return ""
}

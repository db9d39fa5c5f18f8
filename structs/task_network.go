package structs

import (
	"fmt"
	"slices"
)

// A task's own network block (resources { network }) is Nomad's form from
// before group networks. Nomad places its ports on the host's network; so
// does Drover, by moving them into the group's network ask, where the
// scheduler reserves them and the client names them in the task's
// environment (NOMAD_PORT_<label>) as it does the group's own.

// mergeTaskNetworks moves the ports of the group's task networks into the
// group's network, making a host network when the group has none. A task
// network that cannot be merged (taskNetworkProblem) is left in place for
// validation to refuse.
func (tg *TaskGroup) mergeTaskNetworks() {
	// Judge every task before moving any, so that two tasks asking for
	// the same label are both left to be refused, naming each other.
	var ready []*Task
	for _, t := range tg.Tasks {
		if t != nil && len(t.Networks) > 0 && tg.taskNetworkProblem(t) == nil {
			ready = append(ready, t)
		}
	}
	for _, t := range ready {
		if len(tg.Networks) == 0 {
			tg.Networks = []*NetworkResource{{Mode: NetworkModeHost}}
		}
		group, own := tg.Networks[0], t.Networks[0]
		group.ReservedPorts = append(group.ReservedPorts, own.ReservedPorts...)
		group.DynamicPorts = append(group.DynamicPorts, own.DynamicPorts...)
		if own.MBits != nil {
			group.MBits = new(*own.MBits + derefInt(group.MBits))
		}
		t.Networks = nil
	}
}

func derefInt(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// validateTaskNetworks refuses the task networks that cannot join the
// group's, each naming the task and why. Those that can are merged by
// Canonicalize; validation of their ports is the group network's.
func (tg *TaskGroup) validateTaskNetworks(p *problems, where string) {
	for i, t := range tg.Tasks {
		if t == nil {
			continue
		}
		if err := tg.taskNetworkProblem(t); err != nil {
			p.add(taskWhere(where, i, t), "%v", err)
		}
	}
}

// taskNetworkProblem says why t's network cannot join the group's: it
// must be one host network of ports (and mbits), in a group whose own
// network, if any, is host too and has none of its labels, nor has another
// task's network.
func (tg *TaskGroup) taskNetworkProblem(t *Task) error {
	switch {
	case len(t.Networks) == 0:
		return nil
	case len(t.Networks) > 1:
		return fmt.Errorf("resources: only one network block is allowed in a task, got %d", len(t.Networks))
	}
	own := t.Networks[0]
	if own == nil {
		return fmt.Errorf("resources: network block must not be null")
	}
	if mode := own.ModeOrDefault(); mode != NetworkModeHost {
		return fmt.Errorf("resources: a task's network block places its ports on the host's network: mode must be %q, got %q; for another mode use the group's network block", NetworkModeHost, mode)
	}
	if own.Device != "" || own.CIDR != "" || own.IP != "" || own.Hostname != "" || own.DNS != nil {
		return fmt.Errorf("resources: a task's network block may hold only mbits and port blocks; give device, cidr, ip, hostname and dns in the group's network block")
	}
	if len(tg.Networks) > 0 && tg.Networks[0] != nil {
		group := tg.Networks[0]
		if mode := group.ModeOrDefault(); mode != NetworkModeHost {
			return fmt.Errorf("resources: the task's network block asks for host ports, but the group's network block has mode %q: move the task's ports into the group's network block", mode)
		}
		for _, port := range own.Ports() {
			if slices.ContainsFunc(group.Ports(), func(g Port) bool { return g.Label == port.Label }) {
				return fmt.Errorf("resources: network port %q is both in the task's network block and in the group's: give it in one of them", port.Label)
			}
		}
	}
	for _, other := range tg.Tasks {
		if other == nil || other == t || len(other.Networks) == 0 || other.Networks[0] == nil {
			continue
		}
		for _, port := range own.Ports() {
			if slices.ContainsFunc(other.Networks[0].Ports(), func(o Port) bool { return o.Label == port.Label }) {
				return fmt.Errorf("resources: network port %q is also in task %q's network block: the ports of a group's tasks share one network, give each label once", port.Label, other.Name)
			}
		}
	}
	return nil
}

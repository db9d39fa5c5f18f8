package taskrunner

import (
	"net"
	"strconv"
	"strings"

	"github.com/drover-io/drover/structs"
)

// The port variables, one of each per port label of the group's network,
// with Nomad's names and meanings: NOMAD_HOST_* are the host's side,
// NOMAD_IP/PORT/ADDR what the task binds to (the mapped port, where the
// port has a to).
const (
	envIPPrefix       = "NOMAD_IP_"
	envPortPrefix     = "NOMAD_PORT_"
	envAddrPrefix     = "NOMAD_ADDR_"
	envHostIPPrefix   = "NOMAD_HOST_IP_"
	envHostPortPrefix = "NOMAD_HOST_PORT_"
	envHostAddrPrefix = "NOMAD_HOST_ADDR_"
)

// addPortVars adds the variables of the allocation's ports to vars.
func addPortVars(vars map[string]string, alloc *structs.Allocation) {
	for _, p := range alloc.PortMappings() {
		label := envLabel(p.Label)
		host := strconv.Itoa(p.Value)
		vars[envHostIPPrefix+label] = p.HostIP
		vars[envHostPortPrefix+label] = host
		vars[envHostAddrPrefix+label] = net.JoinHostPort(p.HostIP, host)

		bind := strconv.Itoa(p.To)
		vars[envIPPrefix+label] = p.HostIP
		vars[envPortPrefix+label] = bind
		vars[envAddrPrefix+label] = net.JoinHostPort(p.HostIP, bind)
	}
}

// The variables of a port inside the allocation's own network namespace,
// as Nomad sets them where the allocation has an address there (modes
// bridge and cni/<name>): its interface, its address, the port the task
// binds to, and the two together.
const (
	envAllocInterfacePrefix = "NOMAD_ALLOC_INTERFACE_"
	envAllocIPPrefix        = "NOMAD_ALLOC_IP_"
	envAllocPortPrefix      = "NOMAD_ALLOC_PORT_"
	envAllocAddrPrefix      = "NOMAD_ALLOC_ADDR_"
)

// addAllocPortVars adds the variables of the allocation's ports in its
// network namespace to vars.
func addAllocPortVars(vars map[string]string, alloc *structs.Allocation) {
	st := alloc.NetworkStatus
	if st == nil || st.Address == "" {
		return
	}
	for _, p := range alloc.PortMappings() {
		label := envLabel(p.Label)
		port := strconv.Itoa(p.To)
		vars[envAllocInterfacePrefix+label] = st.InterfaceName
		vars[envAllocIPPrefix+label] = st.Address
		vars[envAllocPortPrefix+label] = port
		vars[envAllocAddrPrefix+label] = net.JoinHostPort(st.Address, port)
	}
}

// envLabel is a port label as it appears in a variable's name: any
// character but a letter, a digit or '_' becomes '_', as in Nomad.
func envLabel(label string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, label)
}

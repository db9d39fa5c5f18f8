package client

import (
	"fmt"
	"net"
	"net/netip"

	"github.com/drover-io/drover/structs"
)

// NetworkConfig is what the node offers of its ports: the address they
// are given on, the range of dynamic ports, and what it keeps back.
type NetworkConfig struct {
	// Interface names the interface whose address the node's ports are
	// given on (Nomad's network_interface). Empty takes the host of
	// HTTPAddr, or, when that is no IP or 0.0.0.0, the address of the
	// default route.
	Interface string
	// MinDynamicPort and MaxDynamicPort bound dynamic ports; zero means
	// Nomad's defaults.
	MinDynamicPort int
	MaxDynamicPort int
	// Reserved is kept back from allocations: CPU, memory, disk and host
	// ports.
	Reserved structs.NodeReservedResources
}

// hostNetwork is the node's host network: its address and, where an
// interface holds it, the interface and its prefix.
func hostNetwork(iface, httpAddr string) (*structs.NetworkResource, error) {
	if iface != "" {
		return interfaceNetwork(iface)
	}
	host, _, err := net.SplitHostPort(httpAddr)
	if err != nil {
		host = httpAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil || addr.IsUnspecified() {
		addr = defaultRouteAddr()
	}
	n := &structs.NetworkResource{Mode: structs.NetworkModeHost, IP: addr.String()}
	if name, prefix, ok := interfaceOf(addr); ok {
		n.Device, n.CIDR = name, prefix.String()
	}
	return n, nil
}

// defaultRouteAddr is the address the host sends from on its default
// route, as Nomad picks the interface of the default route: a UDP
// "connection" only asks the kernel for the route, and sends nothing.
// Without a default route it is the loopback address.
func defaultRouteAddr() netip.Addr {
	loopback := netip.MustParseAddr("127.0.0.1")
	c, err := net.Dial("udp4", "192.0.2.1:9") // TEST-NET-1: never answered
	if err != nil {
		return loopback
	}
	defer c.Close()
	ua, ok := c.LocalAddr().(*net.UDPAddr)
	if !ok {
		return loopback
	}
	addr, ok := netip.AddrFromSlice(ua.IP)
	if !ok || addr.IsUnspecified() {
		return loopback
	}
	return addr.Unmap()
}

// interfaceNetwork is the first address of the named interface, IPv4
// first, as Nomad takes it.
func interfaceNetwork(name string) (*structs.NetworkResource, error) {
	ifc, err := net.InterfaceByName(name)
	if err != nil {
		return nil, fmt.Errorf("network_interface %q: %w", name, err)
	}
	prefixes, err := interfacePrefixes(ifc)
	if err != nil {
		return nil, fmt.Errorf("network_interface %q: %w", name, err)
	}
	var best *netip.Prefix
	for i, p := range prefixes {
		if best == nil || p.Addr().Is4() && !best.Addr().Is4() {
			best = &prefixes[i]
		}
	}
	if best == nil {
		return nil, fmt.Errorf("network_interface %q has no address", name)
	}
	return &structs.NetworkResource{Mode: structs.NetworkModeHost, Device: name, CIDR: best.Masked().String(), IP: best.Addr().String()}, nil
}

// interfaceOf finds the interface that holds addr.
func interfaceOf(addr netip.Addr) (string, netip.Prefix, bool) {
	ifcs, err := net.Interfaces()
	if err != nil {
		return "", netip.Prefix{}, false
	}
	for _, ifc := range ifcs {
		prefixes, err := interfacePrefixes(&ifc)
		if err != nil {
			continue
		}
		for _, p := range prefixes {
			if p.Addr() == addr {
				return ifc.Name, p.Masked(), true
			}
		}
	}
	return "", netip.Prefix{}, false
}

func interfacePrefixes(ifc *net.Interface) ([]netip.Prefix, error) {
	addrs, err := ifc.Addrs()
	if err != nil {
		return nil, err
	}
	var out []netip.Prefix
	for _, a := range addrs {
		ipn, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		p, err := netip.ParsePrefix(ipn.String())
		if err != nil {
			continue
		}
		out = append(out, netip.PrefixFrom(p.Addr().Unmap(), p.Bits()))
	}
	return out, nil
}

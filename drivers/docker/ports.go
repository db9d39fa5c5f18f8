package docker

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strconv"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/structs"
)

// publishPorts maps the group's ports the task's `ports` and `port_map`
// name into its container, as Nomad's driver does: the host port, on the
// host's address, forwards to the port `port_map` gives it, else to the
// port's `to` in the container (its host port when it has none), over TCP
// and UDP.
func publishPorts(cfg *drivers.TaskConfig, labels []string, portMap map[string]int, ccfg *container.Config, host *container.HostConfig) error {
	for _, label := range slices.Sorted(maps.Keys(portMap)) {
		if !slices.Contains(labels, label) {
			labels = append(slices.Clip(labels), label)
		}
	}
	if len(labels) == 0 {
		return nil
	}
	byLabel := make(map[string]structs.AllocatedPortMapping, len(cfg.Ports))
	for _, p := range cfg.Ports {
		byLabel[p.Label] = p
	}
	ccfg.ExposedPorts = network.PortSet{}
	host.PortBindings = network.PortMap{}
	for _, label := range labels {
		key := "ports"
		if _, mapped := portMap[label]; mapped {
			key = "port_map"
		}
		p, ok := byLabel[label]
		if !ok {
			return fmt.Errorf("config key %q: port %q is not a port of the group's network block (nor of the task's)", key, label)
		}
		hostIP, err := netip.ParseAddr(p.HostIP)
		if err != nil {
			return fmt.Errorf("config key %q: port %q: host address %q: %w", "ports", label, p.HostIP, err)
		}
		to := p.To
		if mapped, ok := portMap[label]; ok {
			to = mapped
		} else if to <= 0 {
			to = p.Value
		}
		for _, proto := range []network.IPProtocol{network.TCP, network.UDP} {
			cport, ok := network.PortFrom(uint16(to), proto)
			if !ok {
				return fmt.Errorf("config key %q: port %q: %d is not a port", "ports", label, to)
			}
			ccfg.ExposedPorts[cport] = struct{}{}
			host.PortBindings[cport] = append(host.PortBindings[cport], network.PortBinding{HostIP: hostIP, HostPort: strconv.Itoa(p.Value)})
		}
	}
	return nil
}

// applyDNS gives the container the group's dns block.
func applyDNS(dns *structs.DNSConfig, host *container.HostConfig) error {
	if dns == nil {
		return nil
	}
	for _, s := range dns.Servers {
		addr, err := netip.ParseAddr(s)
		if err != nil {
			return fmt.Errorf("network dns server %q: %w", s, err)
		}
		host.DNS = append(host.DNS, addr)
	}
	host.DNSSearch = append(host.DNSSearch, dns.Searches...)
	host.DNSOptions = append(host.DNSOptions, dns.Options...)
	return nil
}

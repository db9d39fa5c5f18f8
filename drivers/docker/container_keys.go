package docker

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/api/types/network"
)

// logTypes are the engine log drivers a task may choose: those that keep
// the output on the node. The driver reads the output back from the
// engine into the allocation's log files whichever it is; one that sends
// it over the network would do so from the node, on the job author's
// behalf.
var logTypes = []string{"json-file", "local", "journald"}

// applyContainerKeys sets what the task's config asks of its container
// beyond its image, command and binds (which containerBinds makes), and
// returns its network settings, nil for the engine's. The plugin
// configuration has allowed it already (checkPolicy).
func applyContainerKeys(ccfg *container.Config, host *container.HostConfig, conf *taskConfig) (*network.NetworkingConfig, error) {
	ccfg.Hostname = conf.Hostname
	for _, s := range conf.DNSServers {
		addr, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf(`config key "dns_servers": %q is not an IP address`, s)
		}
		host.DNS = append(host.DNS, addr)
	}
	// The group's dns block (applyDNS) came first; the task's keys add to it.
	host.DNSSearch = append(host.DNSSearch, conf.DNSSearchDomains...)
	host.DNSOptions = append(host.DNSOptions, conf.DNSOptions...)
	host.ExtraHosts = conf.ExtraHosts
	host.Sysctls = conf.Sysctls
	host.SecurityOpt = conf.SecurityOpt
	host.ReadonlyRootfs = conf.ReadonlyRootfs
	host.IpcMode = container.IpcMode(conf.IPCMode)
	if conf.PIDMode != "private" {
		// The engine's private PID namespace is its default, "".
		host.PidMode = container.PidMode(conf.PIDMode)
	}
	for _, d := range conf.Devices {
		host.Devices = append(host.Devices, container.DeviceMapping{
			PathOnHost: d.HostPath, PathInContainer: d.ContainerPath, CgroupPermissions: d.CgroupPermissions,
		})
	}
	for _, m := range conf.Mounts {
		if m.Type != "bind" { // binds go through containerBinds
			host.Mounts = append(host.Mounts, engineMount(m))
		}
	}
	if l := conf.Logging; l != nil {
		if !slices.Contains(logTypes, l.Type) {
			return nil, fmt.Errorf(`config key "logging": type %q is not supported: Drover allows the log drivers that keep the output on the node (%v)`, l.Type, logTypes)
		}
		host.LogConfig = taskLogConfig(host.LogConfig, l)
	}
	return networkingConfig(conf)
}

// taskLogConfig is the task's log driver. The file drivers keep the
// driver's bounds (def) on the node's disk unless the task sets its own.
func taskLogConfig(def container.LogConfig, l *loggingConfig) container.LogConfig {
	out := container.LogConfig{Type: l.Type, Config: map[string]string{}}
	if l.Type == "json-file" || l.Type == "local" {
		maps.Copy(out.Config, def.Config)
	}
	maps.Copy(out.Config, l.Config)
	return out
}

// engineMount is a volume or tmpfs mount.
func engineMount(m mountSpec) mount.Mount {
	out := mount.Mount{Type: mount.Type(m.Type), Source: m.Source, Target: m.Target, ReadOnly: m.ReadOnly}
	switch m.Type {
	case "tmpfs":
		out.TmpfsOptions = &mount.TmpfsOptions{SizeBytes: m.TmpfsSize, Mode: m.TmpfsMode}
	case "volume":
		out.VolumeOptions = &mount.VolumeOptions{NoCopy: m.NoCopy, Labels: m.Labels}
		if m.Driver != "" {
			out.VolumeOptions.DriverConfig = &mount.Driver{Name: m.Driver, Options: m.DriverOptions}
		}
	}
	return out
}

// networkingConfig gives the container its network_aliases, which only
// a user-defined network (network_mode naming one) has.
func networkingConfig(conf *taskConfig) (*network.NetworkingConfig, error) {
	if len(conf.NetworkAliases) == 0 {
		return nil, nil
	}
	mode := container.NetworkMode(conf.NetworkMode)
	if !mode.IsUserDefined() {
		return nil, fmt.Errorf(`config key "network_aliases": aliases need network_mode to name a user-defined network, not %q`, conf.NetworkMode)
	}
	return &network.NetworkingConfig{EndpointsConfig: map[string]*network.EndpointSettings{
		conf.NetworkMode: {Aliases: conf.NetworkAliases},
	}}, nil
}

package configschema

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"

	"github.com/drover-io/drover/drivers/shared/taskconfig"
)

// dockerContainerKeys are the keys that shape the container beyond its
// image and command: name resolution, kernel settings, confinement and
// mounts. Which of them a node allows is the driver's plugin
// configuration's to say, when the task starts.
var dockerContainerKeys = []taskconfig.Key{
	{Name: "dns_servers", Type: taskconfig.StringList, Check: checkIPs},
	{Name: "dns_search_domains", Type: taskconfig.StringList, Check: notEmptyEntries},
	{Name: "dns_options", Type: taskconfig.StringList, Check: notEmptyEntries},
	{Name: "extra_hosts", Type: taskconfig.StringList, Check: checkExtraHosts},
	{Name: "hostname", Type: taskconfig.String},
	{Name: "sysctl", Type: taskconfig.StringMap},
	{Name: "security_opt", Type: taskconfig.StringList, Check: notEmptyEntries},
	{Name: "readonly_rootfs", Type: taskconfig.Bool},
	{Name: "ipc_mode", Type: taskconfig.String, Check: checkIPCMode},
	{Name: "pid_mode", Type: taskconfig.String, Check: checkPIDMode},
	{Name: "network_aliases", Type: taskconfig.StringList, Check: notEmptyEntries},
	{Name: "devices", Type: taskconfig.Any, Check: checkDevices},
	{Name: "mount", Type: taskconfig.Any, Check: checkMounts},
	{Name: "mounts", Type: taskconfig.Any, Check: checkMounts},
	{Name: "logging", Type: taskconfig.Block, Keys: []taskconfig.Key{
		{Name: "type", Type: taskconfig.String},
		{Name: "driver", Type: taskconfig.String},
		{Name: "config", Type: taskconfig.StringMap},
	}},
}

func checkIPs(v any) error {
	var errs []error
	for i, s := range v.([]string) {
		if _, err := netip.ParseAddr(s); err != nil {
			errs = append(errs, fmt.Errorf("entry %d: %q is not an IP address", i, s))
		}
	}
	return errors.Join(errs...)
}

func notEmptyEntries(v any) error {
	for i, s := range v.([]string) {
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("entry %d is empty", i)
		}
	}
	return nil
}

// ParseExtraHost reads one `extra_hosts` entry, "name:address", where
// the address is an IP address or the engine's "host-gateway".
func ParseExtraHost(s string) (name, addr string, err error) {
	name, addr, ok := strings.Cut(s, ":")
	if !ok || name == "" {
		return "", "", fmt.Errorf("%q is not name:address", s)
	}
	if _, err := netip.ParseAddr(addr); err != nil && addr != "host-gateway" {
		return "", "", fmt.Errorf("%q: %q is not an IP address", s, addr)
	}
	return name, addr, nil
}

func checkExtraHosts(v any) error {
	var errs []error
	for i, s := range v.([]string) {
		if _, _, err := ParseExtraHost(s); err != nil {
			errs = append(errs, fmt.Errorf("entry %d: %w", i, err))
		}
	}
	return errors.Join(errs...)
}

// checkIPCMode accepts the engine's IPC modes.
func checkIPCMode(v any) error {
	switch s := v.(string); {
	case s == "", s == "private", s == "shareable", s == "none", s == "host":
		return nil
	case strings.HasPrefix(s, "container:") && len(s) > len("container:"):
		return nil
	default:
		return fmt.Errorf(`%q is none of "private", "shareable", "none", "host", "container:<name>"`, s)
	}
}

// checkPIDMode accepts the engine's PID modes.
func checkPIDMode(v any) error {
	switch s := v.(string); {
	case s == "", s == "private", s == "host":
		return nil
	case strings.HasPrefix(s, "container:") && len(s) > len("container:"):
		return nil
	default:
		return fmt.Errorf(`%q is none of "private", "host", "container:<name>"`, s)
	}
}

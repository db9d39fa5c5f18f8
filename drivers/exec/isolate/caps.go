package isolate

import (
	"fmt"
	"slices"
	"strings"
)

// capNames are Linux's capabilities by number, as their names without
// "CAP_" in lower case (capabilities(7)).
var capNames = []string{
	"chown", "dac_override", "dac_read_search", "fowner", "fsetid", "kill",
	"setgid", "setuid", "setpcap", "linux_immutable", "net_bind_service",
	"net_broadcast", "net_admin", "net_raw", "ipc_lock", "ipc_owner",
	"sys_module", "sys_rawio", "sys_chroot", "sys_ptrace", "sys_pacct",
	"sys_admin", "sys_boot", "sys_nice", "sys_resource", "sys_time",
	"sys_tty_config", "mknod", "lease", "audit_write", "audit_control",
	"setfcap", "mac_override", "mac_admin", "syslog", "wake_alarm",
	"block_suspend", "audit_read", "perfmon", "bpf", "checkpoint_restore",
}

// DefaultCaps are the capabilities an exec task holds, and the client
// allows, unless configured otherwise: the set container engines give a
// container by default, which is Nomad's default for exec too.
var DefaultCaps = []string{
	"audit_write", "chown", "dac_override", "fowner", "fsetid", "kill",
	"mknod", "net_bind_service", "setfcap", "setgid", "setpcap", "setuid",
	"sys_chroot",
}

// NormalizeCap returns a capability's name as Spec.Caps holds it: lower
// case without "CAP_". "all" stands for every capability.
func NormalizeCap(name string) (string, error) {
	n := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(name)), "cap_")
	if n == "all" || slices.Contains(capNames, n) {
		return n, nil
	}
	return "", fmt.Errorf("unknown capability %q", name)
}

// AllCaps returns every capability's name.
func AllCaps() []string { return slices.Clone(capNames) }

// capNumber returns the number of a capability name.
func capNumber(name string) (int, bool) {
	i := slices.Index(capNames, name)
	return i, i >= 0
}

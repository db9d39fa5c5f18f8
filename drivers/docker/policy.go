package docker

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// What a task may ask of the engine is the node operator's to allow,
// through the plugin configuration: each setting below reaches beyond
// the task's own container (the node's processes, its devices and files,
// its kernel settings, or the confinement that keeps a root process in
// the container from being root on the node). A refusal names the task's
// key and the plugin option that would allow it.
const (
	optPrivileged = `plugin "docker" config allow_privileged = true`
	optVolumes    = `plugin "docker" config volumes { enabled = true }`
)

// checkPolicy returns every setting of the task that the plugin
// configuration does not allow, joined.
func checkPolicy(conf *taskConfig, plugin *PluginConfig) error {
	var errs []error
	if conf.Privileged && !plugin.AllowPrivileged {
		errs = append(errs, fmt.Errorf(`config key "privileged": privileged containers are not allowed on this node (%s)`, optPrivileged))
	}
	errs = append(errs, checkCaps(conf.CapAdd, plugin.AllowCaps))
	errs = append(errs, checkSysctls(conf.Sysctls, plugin.AllowSysctls))
	if !plugin.AllowPrivileged {
		errs = append(errs, checkNamespaceModes(conf)...)
		errs = append(errs, checkSecurityOpt(conf.SecurityOpt))
	}
	if !plugin.VolumesEnabled {
		for i, d := range conf.Devices {
			errs = append(errs, fmt.Errorf(`config key "devices": entry %d: host device %q is not allowed on this node (%s)`, i, d.HostPath, optVolumes))
		}
		for _, m := range conf.Mounts {
			if m.Type == "volume" && (m.Source != "" || m.Driver != "") {
				errs = append(errs, fmt.Errorf(`%s: named volume %q outlives the allocation, which is not allowed on this node (%s)`, m.what, m.Source, optVolumes))
			}
		}
	}
	return errors.Join(errs...)
}

// checkCaps refuses a capability to add that the node does not allow.
func checkCaps(add, allowed []string) error {
	if slices.Contains(allowed, "all") {
		return nil
	}
	var refused []string
	for _, c := range normalizeCaps(add) {
		if !slices.Contains(allowed, c) {
			refused = append(refused, c)
		}
	}
	if len(refused) > 0 {
		return fmt.Errorf(`config key "cap_add": %s not allowed on this node (plugin "docker" config allow_caps: %s)`,
			strings.Join(refused, ", "), strings.Join(allowed, ", "))
	}
	return nil
}

// checkSysctls refuses a kernel setting the node does not allow. The
// engine sets only those its kernel namespaces per container; allowed
// are those of them that cannot starve the node (see
// defaultAllowSysctls), unless the operator allows more.
func checkSysctls(sysctls map[string]string, allowed []string) error {
	var refused []string
	for _, name := range sortedKeys(sysctls) {
		if !sysctlAllowed(name, allowed) {
			refused = append(refused, name)
		}
	}
	if len(refused) > 0 {
		return fmt.Errorf(`config key "sysctl": %s not allowed on this node (plugin "docker" config allow_sysctls: %s)`,
			strings.Join(refused, ", "), strings.Join(allowed, ", "))
	}
	return nil
}

// sysctlAllowed matches a name against allow_sysctls entries: a name,
// a prefix ending in ".*" ("net.ipv4.*"), or "all".
func sysctlAllowed(name string, allowed []string) bool {
	for _, a := range allowed {
		prefix, isGlob := strings.CutSuffix(a, "*")
		switch {
		case a == "all", a == name:
			return true
		case isGlob && strings.HasSuffix(prefix, ".") && strings.HasPrefix(name, prefix):
			return true
		}
	}
	return false
}

// checkNamespaceModes refuses joining the node's PID or IPC namespace,
// or another container's: the node's processes (a root process with the
// default kill capability can signal any of them) and its shared memory,
// or another task's.
func checkNamespaceModes(conf *taskConfig) []error {
	var errs []error
	for _, m := range []struct{ key, mode string }{{"pid_mode", conf.PIDMode}, {"ipc_mode", conf.IPCMode}} {
		if m.mode == "host" || strings.HasPrefix(m.mode, "container:") {
			errs = append(errs, fmt.Errorf(`config key %q: %q is not allowed on this node (%s)`, m.key, m.mode, optPrivileged))
		}
	}
	return errs
}

// checkSecurityOpt allows, without allow_privileged, only the options
// that tighten confinement: every other one (another seccomp or AppArmor
// profile, SELinux labels, unmasked /proc paths) may loosen it.
func checkSecurityOpt(opts []string) error {
	var refused []string
	for _, o := range opts {
		switch strings.ReplaceAll(o, "=", ":") {
		case "no-new-privileges", "no-new-privileges:true":
		default:
			refused = append(refused, fmt.Sprintf("%q", o))
		}
	}
	if len(refused) > 0 {
		return fmt.Errorf(`config key "security_opt": %s not allowed on this node (%s; "no-new-privileges" is always allowed)`,
			strings.Join(refused, ", "), optPrivileged)
	}
	return nil
}

package exec2

import (
	"github.com/drover-io/drover/drivers/configschema"
	"github.com/drover-io/drover/drivers/exec/isolate"
)

// defaultUnveil is what unveil_defaults grants: what ordinary programs
// need of the host to start, resolve names and speak TLS, as Nomad's
// exec2 grants it. A path the host does not have is left out.
var defaultUnveil = []string{
	// Programs and shared libraries.
	"rx:/bin", "rx:/usr/bin", "rx:/usr/local/bin",
	"rx:/lib", "rx:/lib64", "rx:/usr/lib", "rx:/usr/lib64", "rx:/usr/libexec",
	"rx:/usr/local/lib", "rx:/usr/local/lib64",
	"r:/etc/ld.so.conf", "r:/etc/ld.so.cache", "r:/etc/ld.so.conf.d",
	// Devices and scratch space.
	// (The task's standard streams are open when it starts, which
	// Landlock does not undo; /dev/stdout and the like lead to pipes,
	// which it cannot make rules of.)
	"rw:/dev/null", "rw:/dev/full", "r:/dev/zero", "r:/dev/urandom", "r:/dev/random",
	"w:/dev/log",
	"rwc:/tmp",
	// Locale, time zones, the kernel's limits a C library reads.
	"r:/usr/share/locale", "r:/usr/share/zoneinfo", "r:/usr/share/common-licenses",
	"r:/proc/self/cmdline", "r:/proc/sys/kernel/ngroups_max",
	"r:/proc/sys/kernel/cap_last_cap", "r:/proc/sys/vm/overcommit_memory",
	// Users, names and services.
	"r:/etc/passwd", "r:/etc/group", "r:/etc/nsswitch.conf",
	"r:/etc/hosts", "r:/etc/hostname", "r:/etc/services", "r:/etc/protocols", "r:/etc/resolv.conf",
	// Certificates.
	"r:/etc/ssl/certs", "r:/etc/pki/tls/certs", "r:/etc/ssl/ca-bundle.pem",
	"r:/etc/pki/tls/cacert.pem", "r:/etc/pki/ca-trust-extracted/pem/tls-ca-bundle.pem",
	"r:/etc/ssl/cert.pem", "r:/usr/share/ca-certificates",
}

// unveilRules are the task's Landlock rules: its own and the shared
// alloc directory in full, the defaults where the client has them on,
// the client's unveil_paths, then the task's own.
func unveilRules(plugin *PluginConfig, taskDir, allocDir string, task []configschema.Unveil) []isolate.PathAccess {
	all := isolate.PathAccess{Read: true, Write: true, Execute: true, Create: true}
	taskRule, allocRule := all, all
	taskRule.Path, allocRule.Path = taskDir, allocDir
	rules := []isolate.PathAccess{taskRule, allocRule}
	if plugin.UnveilDefaults {
		for _, s := range defaultUnveil {
			u, err := configschema.ParseUnveil(s)
			if err != nil {
				continue // TestDefaultUnveil_Parses holds them valid
			}
			r := access(u)
			r.IfExists = true
			rules = append(rules, r)
		}
	}
	for _, u := range plugin.UnveilPaths {
		rules = append(rules, access(u))
	}
	for _, u := range task {
		rules = append(rules, access(u))
	}
	return rules
}

func access(u configschema.Unveil) isolate.PathAccess {
	return isolate.PathAccess{Path: u.Path, Read: u.Read, Write: u.Write, Execute: u.Execute, Create: u.Create}
}

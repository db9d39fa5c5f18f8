package docker

import (
	"testing"

	"github.com/shoenig/test/must"
)

// TestPolicy_RefusesNamingKeyAndOption: each setting that reaches beyond
// the container is refused on a node with the default plugin config,
// with an error naming the task's key and the plugin option that would
// allow it; with that option, it is allowed.
func TestPolicy_RefusesNamingKeyAndOption(t *testing.T) {
	cases := []struct {
		name  string
		raw   map[string]any
		key   string
		allow func(*PluginConfig)
	}{
		{"privileged", map[string]any{"privileged": true}, `config key "privileged"`, allowPrivileged},
		{"cap beyond the allow-list", map[string]any{"cap_add": []any{"SYS_ADMIN"}}, `config key "cap_add": sys_admin`,
			func(c *PluginConfig) { c.AllowCaps = append(c.AllowCaps, "sys_admin") }},
		{"sysctl beyond the allow-list", map[string]any{"sysctl": map[string]any{"net.core.somaxconn": "4096"}}, `config key "sysctl": net.core.somaxconn`,
			func(c *PluginConfig) { c.AllowSysctls = []string{"net.core.*"} }},
		{"host PID namespace", map[string]any{"pid_mode": "host"}, `config key "pid_mode": "host"`, allowPrivileged},
		{"another container's PID namespace", map[string]any{"pid_mode": "container:db"}, `config key "pid_mode": "container:db"`, allowPrivileged},
		{"host IPC namespace", map[string]any{"ipc_mode": "host"}, `config key "ipc_mode": "host"`, allowPrivileged},
		{"unconfined seccomp", map[string]any{"security_opt": []any{"no-new-privileges", "seccomp=unconfined"}}, `config key "security_opt": "seccomp=unconfined"`, allowPrivileged},
		{"SELinux label", map[string]any{"security_opt": []any{"label=disable"}}, `config key "security_opt": "label=disable"`, allowPrivileged},
		{"device", map[string]any{"devices": []any{map[string]any{"host_path": "/dev/fuse"}}}, `config key "devices": entry 0: host device "/dev/fuse"`, enableVolumes},
		{"named volume", map[string]any{"mount": []any{map[string]any{"type": "volume", "source": "pgdata", "target": "/data"}}}, `config key "mount": entry 0: named volume "pgdata"`, enableVolumes},
		{"host bind mount", map[string]any{"mount": []any{map[string]any{"type": "bind", "source": "/etc", "target": "/etc2"}}}, `config key "mount": entry 0: host path "/etc"`, enableVolumes},
		{"host bind in mounts", map[string]any{"mounts": []any{map[string]any{"type": "tmpfs", "target": "/t"}, map[string]any{"type": "bind", "source": "/etc", "target": "/etc2"}}},
			`config key "mounts": entry 1: host path "/etc"`, enableVolumes},
		{"host volume", map[string]any{"volumes": []any{"/etc:/etc2"}}, `config key "volumes": entry 0: host path "/etc"`, enableVolumes},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			conf := specConfig(t, tc.raw)
			_, _, err := createOptions(specTask(), conf, DefaultPluginConfig())
			must.ErrorContains(t, err, tc.key)
			allowing := DefaultPluginConfig()
			tc.allow(allowing)
			must.ErrorContains(t, err, "on this node ("+optionName(t, allowing))
			_, _, err = createOptions(specTask(), conf, allowing)
			must.NoError(t, err)
		})
	}
}

func allowPrivileged(c *PluginConfig) { c.AllowPrivileged = true }
func enableVolumes(c *PluginConfig)   { c.VolumesEnabled = true }

// optionName is the plugin option the mutated config differs in, as the
// error names it.
func optionName(t *testing.T, c *PluginConfig) string {
	t.Helper()
	def := DefaultPluginConfig()
	switch {
	case c.AllowPrivileged != def.AllowPrivileged:
		return optPrivileged
	case c.VolumesEnabled != def.VolumesEnabled:
		return optVolumes
	case len(c.AllowCaps) != len(def.AllowCaps):
		return `plugin "docker" config allow_caps`
	case len(c.AllowSysctls) != len(def.AllowSysctls):
		return `plugin "docker" config allow_sysctls`
	}
	t.Fatal("the case allows nothing")
	return ""
}

// TestPolicy_AlwaysAllowed: what stays within the container needs no
// plugin option.
func TestPolicy_AlwaysAllowed(t *testing.T) {
	conf := specConfig(t, map[string]any{
		"sysctl":       map[string]any{"net.ipv4.tcp_syncookies": "0", "kernel.shm_rmid_forced": "1"},
		"security_opt": []any{"no-new-privileges", "no-new-privileges:true"},
		"pid_mode":     "private",
		"ipc_mode":     "shareable",
		"cap_add":      []any{"CAP_CHOWN", "kill"},
		"mount": []any{
			map[string]any{"type": "volume", "target": "/cache"},
			map[string]any{"type": "tmpfs", "target": "/tmp"},
			map[string]any{"type": "bind", "source": "local", "target": "/conf"},
			map[string]any{"type": "bind", "source": "/var/drover/alloc/8d4a/alloc/data", "target": "/data"},
		},
	})
	opts, binds, err := createOptions(specTask(), conf, DefaultPluginConfig())
	must.NoError(t, err)
	must.Len(t, 2, opts.HostConfig.Mounts, must.Sprint("the volume and the tmpfs; binds are made at the start"))
	must.Eq(t, bindSpec{source: "web/local", inAlloc: true, followLinks: true, target: "/conf", what: `config key "mount": entry 2 ("local")`}, binds[3])
	must.Eq(t, bindSpec{source: "alloc/data", inAlloc: true, followLinks: true, target: "/data", what: `config key "mount": entry 3 ("/var/drover/alloc/8d4a/alloc/data")`}, binds[4],
		must.Sprint("an absolute path inside the allocation, as ${NOMAD_ALLOC_DIR} gives, is resolved beneath it"))
}

func TestSysctlAllowed(t *testing.T) {
	must.True(t, sysctlAllowed("net.ipv4.tcp_syncookies", defaultAllowSysctls))
	must.False(t, sysctlAllowed("net.core.somaxconn", defaultAllowSysctls))
	must.True(t, sysctlAllowed("net.core.somaxconn", []string{"net.*"}))
	must.False(t, sysctlAllowed("netx.core", []string{"net*"}), must.Sprint("a prefix ends at a dot"))
	must.True(t, sysctlAllowed("kernel.msgmax", []string{"all"}))
}

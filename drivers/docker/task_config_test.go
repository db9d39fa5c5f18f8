package docker

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers/configschema"
)

func TestParseTaskConfig_EveryKey(t *testing.T) {
	c, err := parseTaskConfig(map[string]any{
		"image":              "prom/prometheus",
		"force_pull":         true,
		"image_pull_timeout": "1m",
		"auth":               []any{map[string]any{"username": "u", "password": "p", "server_address": "registry.example"}},
		"command":            "/bin/prometheus",
		"args":               []any{"--config.file", "/local/prometheus.yml"},
		"entrypoint":         []any{"/bin/tini", "--"},
		"work_dir":           "/data",
		"labels":             []any{map[string]any{"team": "obs"}},
		"network_mode":       "host",
		"volumes":            []any{"data:/data", "/etc/ssl:/etc/ssl:ro"},
		"privileged":         false,
		"cap_add":            []any{"NET_ADMIN"},
		"cap_drop":           []any{"ALL"},
		"ulimit":             []any{map[string]any{"nofile": "1024:2048", "nproc": 64}},
		"shm_size":           1 << 26,
		"init":               true,
	})
	must.NoError(t, err)
	must.Eq(t, "docker.io/prom/prometheus:latest", c.Image)
	must.True(t, c.ForcePull)
	must.Eq(t, time.Minute, c.ImagePullTimeout)
	must.Eq(t, &authConfig{Username: "u", Password: "p", ServerAddress: "registry.example"}, c.Auth)
	must.Eq(t, "/bin/prometheus", c.Command)
	must.Eq(t, []string{"--config.file", "/local/prometheus.yml"}, c.Args)
	must.Eq(t, []string{"/bin/tini", "--"}, c.Entrypoint)
	must.Eq(t, "/data", c.WorkDir)
	must.Eq(t, map[string]string{"team": "obs"}, c.Labels)
	must.Eq(t, "host", c.NetworkMode)
	must.Eq(t, []volumeSpec{{Source: "data", Target: "/data"}, {Source: "/etc/ssl", Target: "/etc/ssl", ReadOnly: true}}, c.Volumes)
	must.Eq(t, []string{"NET_ADMIN"}, c.CapAdd)
	must.Eq(t, []string{"ALL"}, c.CapDrop)
	must.SliceLen(t, 2, c.Ulimits)
	must.Eq(t, "nofile", c.Ulimits[0].Name)
	must.Eq(t, int64(1024), c.Ulimits[0].Soft)
	must.Eq(t, int64(2048), c.Ulimits[0].Hard)
	must.Eq(t, int64(64), c.Ulimits[1].Hard)
	must.Eq(t, int64(1<<26), c.ShmSize)
	must.True(t, c.Init)
}

func TestParseTaskConfig_Defaults(t *testing.T) {
	c, err := parseTaskConfig(map[string]any{"image": "127.0.0.1:5000/app@sha256:" + sha})
	must.NoError(t, err)
	must.Eq(t, "127.0.0.1:5000/app@sha256:"+sha, c.Image)
	must.Eq(t, defaultImagePullTimeout, c.ImagePullTimeout)
	must.Nil(t, c.Auth)
}

const sha = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestParseTaskConfig_Errors(t *testing.T) {
	cases := []struct {
		name string
		raw  map[string]any
		want []string
	}{
		{name: "no image", raw: map[string]any{}, want: []string{`config key "image" is required`}},
		{name: "empty image", raw: map[string]any{"image": ""}, want: []string{`config key "image": must not be empty`}},
		{name: "bad image", raw: map[string]any{"image": "Prom/Prometheus"},
			want: []string{`config key "image": "Prom/Prometheus" is not a valid image reference`}},
		{name: "unknown keys", raw: map[string]any{"image": "redis", "volume_driver": "x", "uts_mode": "host"},
			want: []string{`unsupported config key "uts_mode"`, `unsupported config key "volume_driver"`}},
		{name: "port_map", raw: map[string]any{"image": "redis", "port_map": map[string]any{"http": 0}},
			want: []string{`config key "port_map": port "http": "0" is not a port (1 to 65535)`}},
		{name: "auth key", raw: map[string]any{"image": "redis", "auth": map[string]any{"email": "me@example"}},
			want: []string{`block "auth": unsupported config key "email"`}},
		{name: "pull timeout", raw: map[string]any{"image": "redis", "image_pull_timeout": "0s"},
			want: []string{`config key "image_pull_timeout": must be positive`}},
		{name: "work dir", raw: map[string]any{"image": "redis", "work_dir": "data"},
			want: []string{`config key "work_dir": "data" is not an absolute path`}},
		{name: "volume", raw: map[string]any{"image": "redis", "volumes": []any{"/data", "a:b", "a:/b:rx"}},
			want: []string{`entry 0: "/data" is not source:target`, `entry 1: "a:b": target "b" is not an absolute path`, `entry 2: "a:/b:rx": mode "rx"`}},
		{name: "ulimit", raw: map[string]any{"image": "redis", "ulimit": map[string]any{"nofiles": "1"}},
			want: []string{`config key "ulimit": "nofiles": invalid ulimit type`}},
		{name: "shm", raw: map[string]any{"image": "redis", "shm_size": -1},
			want: []string{`config key "shm_size": must not be negative`}},
		{name: "types", raw: map[string]any{"image": "redis", "privileged": "maybe", "args": "a b"},
			want: []string{`config key "privileged": want a boolean`, `config key "args": want a list of strings`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseTaskConfig(tc.raw)
			for _, w := range tc.want {
				must.ErrorContains(t, err, w)
			}
		})
	}
}

func TestParsePluginConfig(t *testing.T) {
	c, err := ParsePluginConfig(nil)
	must.NoError(t, err)
	must.Eq(t, DefaultPluginConfig(), c)
	must.True(t, c.GC.Image)
	must.True(t, c.GC.Container)
	must.Eq(t, 3*time.Minute, c.GC.ImageDelay)
	must.Eq(t, 2*time.Minute, c.PullActivityTimeout)

	c, err = ParsePluginConfig(map[string]any{
		"endpoint":              "tcp://127.0.0.1:2375",
		"allow_privileged":      true,
		"allow_caps":            []any{"CAP_NET_ADMIN", "chown"},
		"allow_sysctls":         []any{"net.core.*", "kernel.msgmax"},
		"volumes":               []any{map[string]any{"enabled": true}},
		"pull_activity_timeout": "30s",
		"gc":                    map[string]any{"image": false, "image_delay": "1m", "container": false},
	})
	must.NoError(t, err)
	must.Eq(t, "tcp://127.0.0.1:2375", c.Endpoint)
	must.True(t, c.AllowPrivileged)
	must.Eq(t, []string{"net_admin", "chown"}, c.AllowCaps)
	must.Eq(t, []string{"net.core.*", "kernel.msgmax"}, c.AllowSysctls)
	must.True(t, c.VolumesEnabled)
	must.Eq(t, 30*time.Second, c.PullActivityTimeout)
	must.Eq(t, GCConfig{Image: false, ImageDelay: time.Minute, Container: false}, c.GC)
}

func TestParsePluginConfig_Errors(t *testing.T) {
	_, err := ParsePluginConfig(map[string]any{
		"infra_image":           "pause",
		"endpoint":              "/var/run/docker.sock",
		"pull_activity_timeout": "soon",
		"gc":                    map[string]any{"dangling_containers": map[string]any{}},
		"volumes":               map[string]any{"enabled": "yes", "selinuxlabel": "z"},
	})
	must.ErrorContains(t, err, `plugin "docker": unsupported config key(s) "infra_image"`)
	must.ErrorContains(t, err, `config key "endpoint": "/var/run/docker.sock" is not an address`)
	must.ErrorContains(t, err, `config key "pull_activity_timeout"`)
	must.ErrorContains(t, err, `block "gc": unsupported config key(s) "dangling_containers"`)
	must.ErrorContains(t, err, `block "volumes": unsupported config key(s) "selinuxlabel"`)
	must.ErrorContains(t, err, `block "volumes": config key "enabled": want a boolean`)
}

func TestParseTaskConfig_ContainerKeys(t *testing.T) {
	c, err := parseTaskConfig(map[string]any{
		"image":              "redis",
		"dns_servers":        []any{"10.0.0.2", "fd00::53"},
		"dns_search_domains": []any{"svc.internal"},
		"dns_options":        []any{"ndots:1"},
		"extra_hosts":        []any{"db:10.0.0.9", "gw:host-gateway", "v6:fd00::9"},
		"hostname":           "cache",
		"sysctl":             []any{map[string]any{"net.ipv4.tcp_syncookies": 0}},
		"security_opt":       []any{"no-new-privileges"},
		"readonly_rootfs":    true,
		"ipc_mode":           "none",
		"pid_mode":           "private",
		"network_aliases":    []any{"cache"},
		"devices":            []any{map[string]any{"host_path": "/dev/fuse"}},
		// The block form, then the list form: both are read, in order.
		"mount": []any{map[string]any{"type": "bind", "source": "local", "target": "/conf", "readonly": true,
			"bind_options": []any{map[string]any{"propagation": "rslave"}}}},
		"mounts": []any{map[string]any{"type": "volume", "target": "/v", "source": "vol",
			"volume_options": []any{map[string]any{"no_copy": true, "labels": map[string]any{"a": "b"},
				"driver_config": map[string]any{"name": "local", "options": map[string]any{"type": "tmpfs"}}}}}},
		"logging": []any{map[string]any{"driver": "journald", "config": []any{map[string]any{"tag": "cache"}}}},
	})
	must.NoError(t, err)
	must.Eq(t, []string{"10.0.0.2", "fd00::53"}, c.DNSServers)
	must.Eq(t, []string{"svc.internal"}, c.DNSSearchDomains)
	must.Eq(t, []string{"ndots:1"}, c.DNSOptions)
	must.Eq(t, []string{"db:10.0.0.9", "gw:host-gateway", "v6:fd00::9"}, c.ExtraHosts)
	must.Eq(t, "cache", c.Hostname)
	must.Eq(t, map[string]string{"net.ipv4.tcp_syncookies": "0"}, c.Sysctls)
	must.Eq(t, []string{"no-new-privileges"}, c.SecurityOpt)
	must.True(t, c.ReadonlyRootfs)
	must.Eq(t, "none", c.IPCMode)
	must.Eq(t, "private", c.PIDMode)
	must.Eq(t, []string{"cache"}, c.NetworkAliases)
	must.Eq(t, []configschema.DockerDevice{{HostPath: "/dev/fuse", ContainerPath: "/dev/fuse", CgroupPermissions: "rwm"}}, c.Devices,
		must.Sprint("the container path and the permissions default as in Nomad"))
	must.Eq(t, []mountSpec{
		{configschema.DockerMount{Type: "bind", Source: "local", Target: "/conf", ReadOnly: true, Propagation: "rslave"}, `config key "mount": entry 0`},
		{configschema.DockerMount{Type: "volume", Source: "vol", Target: "/v", NoCopy: true, Labels: map[string]string{"a": "b"},
			Driver: "local", DriverOptions: map[string]string{"type": "tmpfs"}}, `config key "mounts": entry 0`},
	}, c.Mounts)
	must.Eq(t, &loggingConfig{Type: "journald", Config: map[string]string{"tag": "cache"}}, c.Logging,
		must.Sprint("driver is Nomad's older name for type"))

	c, err = parseTaskConfig(map[string]any{"image": "redis", "logging": map[string]any{"config": map[string]any{"max-size": "5m"}}})
	must.NoError(t, err)
	must.Eq(t, &loggingConfig{Type: "json-file", Config: map[string]string{"max-size": "5m"}}, c.Logging)
	opts, _, err := createOptions(specTask(), c, DefaultPluginConfig())
	must.NoError(t, err)
	must.Eq(t, map[string]string{"max-size": "5m", "max-file": "2"}, opts.HostConfig.LogConfig.Config)
	c.Logging.Type = "syslog"
	_, _, err = createOptions(specTask(), c, DefaultPluginConfig())
	must.ErrorContains(t, err, `config key "logging": type "syslog" is not supported`)
}

func TestParseTaskConfig_ContainerKeyErrors(t *testing.T) {
	_, err := parseTaskConfig(map[string]any{
		"image":       "redis",
		"dns_servers": []any{"dns.example"},
		"extra_hosts": []any{"db=10.0.0.9", "db:ten"},
		"ipc_mode":    "global",
		"pid_mode":    "container:",
		"devices":     []any{map[string]any{"container_path": "/dev/x"}, map[string]any{"host_path": "/dev/fuse", "cgroup_permissions": "rwx"}},
		"mount": []any{
			map[string]any{"type": "tmpfs", "source": "x", "target": "/t"},
			map[string]any{"type": "nfs", "target": "/n"},
			map[string]any{"target": "rel"},
			map[string]any{"type": "volume", "target": "/v", "bind_options": map[string]any{"propagation": "shared"}},
			map[string]any{"type": "bind", "source": "a", "target": "/b", "readonly": "yes"},
		},
		"mounts": map[string]any{"target": "/x", "size": 1},
	})
	for _, want := range []string{
		`config key "dns_servers": entry 0: "dns.example" is not an IP address`,
		`config key "extra_hosts": entry 0: "db=10.0.0.9" is not name:address`,
		`entry 1: "db:ten": "ten" is not an IP address`,
		`config key "ipc_mode": "global" is none of`,
		`config key "pid_mode": "container:" is none of`,
		`config key "devices": entry 0: host_path "" is not an absolute path`,
		`entry 1: cgroup_permissions "rwx" is not made of r, w and m`,
		`config key "mount": entry 0: a tmpfs mount takes no source, got "x"`,
		`entry 1: type "nfs" is none of "bind", "volume", "tmpfs"`,
		`entry 2: target "rel" is not an absolute path`,
		`entry 3: bind_options are for bind mounts, not "volume"`,
		`entry 4: config key "readonly": want a boolean`,
		`config key "mounts": entry 0: unsupported config key(s) "size"`,
	} {
		must.ErrorContains(t, err, want)
	}
}

package docker

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"
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
		{name: "unknown keys", raw: map[string]any{"image": "redis", "port_map": 1, "uts_mode": "host"},
			want: []string{`unsupported config key "uts_mode"`, `unsupported config key "port_map"`}},
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
		"volumes":               []any{map[string]any{"enabled": true}},
		"pull_activity_timeout": "30s",
		"gc":                    map[string]any{"image": false, "image_delay": "1m", "container": false},
	})
	must.NoError(t, err)
	must.Eq(t, "tcp://127.0.0.1:2375", c.Endpoint)
	must.True(t, c.AllowPrivileged)
	must.Eq(t, []string{"net_admin", "chown"}, c.AllowCaps)
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

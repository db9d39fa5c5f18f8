package docker

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/structs"
)

func specTask() *drivers.TaskConfig {
	return &drivers.TaskConfig{
		ID:        "8d4a3f70-0000-0000-0000-000000000000/web server/1a2b3c4d",
		AllocID:   "8d4a3f70-0000-0000-0000-000000000000",
		Name:      "web server",
		JobName:   "job",
		Namespace: "default",
		Env: map[string]string{
			"NOMAD_ALLOC_DIR":   "/var/drover/alloc/8d4a/alloc",
			"NOMAD_TASK_DIR":    "/var/drover/alloc/8d4a/web/local",
			"NOMAD_SECRETS_DIR": "/var/drover/alloc/8d4a/web/secrets",
			"GREETING":          "hi",
		},
		AllocDir:  "/var/drover/alloc/8d4a/alloc",
		TaskDir:   "/var/drover/alloc/8d4a/web",
		Resources: &structs.Resources{CPU: 1, MemoryMB: 128},
	}
}

func specConfig(t *testing.T, raw map[string]any) *taskConfig {
	t.Helper()
	raw["image"] = "redis"
	c, err := parseTaskConfig(raw)
	must.NoError(t, err)
	return c
}

func TestCreateOptions(t *testing.T) {
	cfg := specTask()
	conf := specConfig(t, map[string]any{
		"command": "/bin/run",
		"args":    []any{"--config", "/var/drover/alloc/8d4a/web/local/app.conf", "--out=/var/drover/alloc/8d4a/alloc/out"},
		"labels":  map[string]any{"team": "a"},
		"volumes": []any{"data:/data:ro"},
		"init":    true,
	})
	opts, binds, err := createOptions(cfg, conf, DefaultPluginConfig())
	must.NoError(t, err)
	must.Eq(t, "web_server-8d4a3f70-0000-0000-0000-000000000000-"+containerName(cfg)[len(containerName(cfg))-8:], opts.Name)
	c, h := opts.Config, opts.HostConfig
	must.Eq(t, "docker.io/library/redis:latest", c.Image)
	// Host paths that interpolation put in the config are the container's.
	must.Eq(t, []string{"/bin/run", "--config", "/local/app.conf", "--out=/alloc/out"}, c.Cmd)
	must.Nil(t, c.Entrypoint)
	must.Eq(t, []string{"GREETING=hi", "NOMAD_ALLOC_DIR=/alloc", "NOMAD_SECRETS_DIR=/secrets", "NOMAD_TASK_DIR=/local"}, c.Env)
	must.Eq(t, "a", c.Labels["team"])
	must.Eq(t, cfg.AllocID, c.Labels[labelAllocID])
	must.Eq(t, "web server", c.Labels[labelTaskName])
	must.Eq(t, cfg.ID, c.Labels[labelTaskID])
	// Sources inside the allocation are relative to it: the driver
	// resolves them beneath it when it starts the container.
	must.Eq(t, []bindSpec{
		{source: "alloc", inAlloc: true, target: "/alloc", what: "the allocation's alloc directory"},
		{source: "web/local", inAlloc: true, target: "/local", what: "the task's local directory"},
		{source: "web/secrets", inAlloc: true, target: "/secrets", what: "the task's secrets directory"},
		{source: "web/data", inAlloc: true, followLinks: true, target: "/data", readOnly: true, what: `config key "volumes": entry 0 ("data")`},
	}, binds)
	must.SliceEmpty(t, h.Mounts, must.Sprint("mounts are made at the start"))
	// The engine refuses shares below 2.
	must.Eq(t, int64(2), h.CPUShares)
	must.Eq(t, int64(128<<20), h.Memory)
	must.Eq(t, int64(0), h.MemoryReservation)
	must.True(t, *h.Init)
	must.Eq(t, "json-file", h.LogConfig.Type)

	// Args alone replace the image's CMD, under its ENTRYPOINT.
	opts, _, err = createOptions(cfg, specConfig(t, map[string]any{"args": []any{"x"}, "entrypoint": []any{"/e"}}), DefaultPluginConfig())
	must.NoError(t, err)
	must.Eq(t, []string{"x"}, opts.Config.Cmd)
	must.Eq(t, []string{"/e"}, opts.Config.Entrypoint)
}

func TestCreateOptions_RefusesWhatTheNodeDoesNotAllow(t *testing.T) {
	cfg := specTask()
	plugin := DefaultPluginConfig()
	cases := []struct {
		name string
		raw  map[string]any
		want string
	}{
		{"privileged", map[string]any{"privileged": true}, `privileged containers are not allowed on this node`},
		{"cap_add", map[string]any{"cap_add": []any{"SYS_ADMIN", "chown"}}, `config key "cap_add": sys_admin not allowed on this node`},
		{"host volume", map[string]any{"volumes": []any{"/etc:/host-etc"}}, `config key "volumes": entry 0: host path "/etc" is not allowed on this node (plugin "docker" config volumes { enabled = true })`},
		{"escaping volume", map[string]any{"volumes": []any{"../../../etc:/x"}}, `"../../../etc" leaves the allocation directory`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := createOptions(cfg, specConfig(t, tc.raw), plugin)
			must.ErrorContains(t, err, tc.want)
		})
	}

	allowing := DefaultPluginConfig()
	allowing.AllowPrivileged, allowing.VolumesEnabled, allowing.AllowCaps = true, true, []string{"all"}
	opts, binds, err := createOptions(cfg, specConfig(t, map[string]any{
		"privileged": true, "cap_add": []any{"SYS_ADMIN"}, "volumes": []any{"/etc:/host-etc:ro", "../alloc/x:/x"},
	}), allowing)
	must.NoError(t, err)
	must.True(t, opts.HostConfig.Privileged)
	must.Eq(t, bindSpec{source: "/etc", target: "/host-etc", readOnly: true, what: `config key "volumes": entry 0 ("/etc")`}, binds[3],
		must.Sprint("a host path, as the node allows"))
	must.Eq(t, bindSpec{source: "alloc/x", inAlloc: true, followLinks: true, target: "/x", what: `config key "volumes": entry 1 ("../alloc/x")`}, binds[4],
		must.Sprint("a relative one stays inside the allocation, volumes enabled or not"))
}

func TestCreateOptions_MemoryMax(t *testing.T) {
	cfg := specTask()
	cfg.Resources = &structs.Resources{CPU: 500, MemoryMB: 256, MemoryMaxMB: 512}
	opts, _, err := createOptions(cfg, specConfig(t, map[string]any{}), DefaultPluginConfig())
	must.NoError(t, err)
	must.Eq(t, int64(512<<20), opts.HostConfig.Memory)
	must.Eq(t, int64(256<<20), opts.HostConfig.MemoryReservation)
	must.Eq(t, int64(512<<20), opts.HostConfig.MemorySwap)
	must.Eq(t, int64(500), opts.HostConfig.CPUShares)
}

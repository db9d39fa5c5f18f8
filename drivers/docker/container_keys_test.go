package docker

import (
	"context"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/internal/beneath/beneathtest"
	"github.com/drover-io/drover/internal/dockertest"
	"github.com/drover-io/drover/structs"
)

// runAndInspect runs the task to its end (exit 0) and returns the
// engine's view of its container, which it then destroys.
func runAndInspect(t *testing.T, d *Driver, cfg *drivers.TaskConfig) container.InspectResponse {
	t.Helper()
	startTask(t, d, cfg)
	res := waitResult(t, d, cfg.ID)
	must.Eq(t, 0, res.ExitCode, must.Sprintf("stderr: %s", readLog(t, cfg.StderrPath)))
	ctx, cancel := context.WithTimeout(context.Background(), exitTimeout)
	defer cancel()
	insp, err := dockertest.Engine(t).ContainerInspect(ctx, containerName(cfg), client.ContainerInspectOptions{})
	must.NoError(t, err)
	must.NoError(t, d.DestroyTask(cfg.ID, true))
	return insp.Container
}

// TestContainerKeys_ReachTheContainer: each key the default plugin
// config allows is in the container the engine made, and where the
// container can show it (its /etc files, /proc, its mounts), the task
// sees it. No network traffic: the resolver settings are only read.
func TestContainerKeys_ReachTheContainer(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{})
	d := newTestDriver(t, nil)
	cfg, _ := newTaskConfig(t, e.image.Ref,
		"cat", "/etc/resolv.conf", "cat", "/etc/hosts", "cat", "/etc/hostname",
		"cat", "/proc/sys/net/ipv4/tcp_syncookies", "cat", "/proc/self/status", "cat", "/proc/self/limits",
		"write", "/scratch/f", "in tmpfs", "cat", "/scratch/f",
		"cat", "/etc/app/app.conf")
	must.NoError(t, os.MkdirAll(filepath.Join(cfg.TaskDir, "local", "conf"), 0o755))
	must.NoError(t, os.WriteFile(filepath.Join(cfg.TaskDir, "local", "conf", "app.conf"), []byte("bound from local"), 0o644))
	for k, v := range map[string]any{
		"dns_servers":        []any{"192.0.2.53"},
		"dns_search_domains": []any{"example.internal"},
		"dns_options":        []any{"ndots:2"},
		"extra_hosts":        []any{"db.internal:192.0.2.10"},
		"hostname":           "keys-test",
		"sysctl":             []any{map[string]any{"net.ipv4.tcp_syncookies": "0"}},
		"security_opt":       []any{"no-new-privileges"},
		"readonly_rootfs":    true,
		"ipc_mode":           "shareable",
		"pid_mode":           "private",
		"cap_add":            []any{"CHOWN"},
		"cap_drop":           []any{"NET_RAW"},
		"shm_size":           2 << 20,
		"init":               true,
		"work_dir":           "/local",
		"entrypoint":         []any{"/testapp", "print", "from the entrypoint"},
		"labels":             map[string]any{dockertest.TestLabel: "1", "team": "a"},
		"ulimit":             map[string]any{"nofile": "256:512"},
		"logging":            []any{map[string]any{"type": "local", "config": []any{map[string]any{"max-size": "1m"}}}},
		"mount": []any{
			map[string]any{"type": "tmpfs", "target": "/scratch", "tmpfs_options": []any{map[string]any{"size": 1 << 20}}},
			map[string]any{"type": "bind", "source": "local/conf", "target": "/etc/app", "readonly": true},
		},
		"mounts": []any{map[string]any{"target": "/cache"}},
	} {
		cfg.Config[k] = v
	}

	c := runAndInspect(t, d, cfg)
	out := readLog(t, cfg.StdoutPath)
	for _, want := range []string{
		"nameserver 192.0.2.53", "search example.internal", "options ndots:2",
		"192.0.2.10\tdb.internal", "keys-test\n", "0\n", "NoNewPrivs:\t1",
		"in tmpfs", "bound from local", "from the entrypoint",
	} {
		must.StrContains(t, out, want)
	}
	// The Go runtime of testapp raises its soft limit towards the hard one.
	must.RegexMatch(t, regexp.MustCompile(`Max open files +\d+ +512 `), out)
	must.Eq(t, []*container.Ulimit{{Name: "nofile", Soft: 256, Hard: 512}}, c.HostConfig.Ulimits)

	h := c.HostConfig
	must.Eq(t, []netip.Addr{netip.MustParseAddr("192.0.2.53")}, h.DNS)
	must.Eq(t, []string{"example.internal"}, h.DNSSearch)
	must.Eq(t, []string{"ndots:2"}, h.DNSOptions)
	must.Eq(t, []string{"db.internal:192.0.2.10"}, h.ExtraHosts)
	must.Eq(t, "keys-test", c.Config.Hostname)
	must.Eq(t, map[string]string{"net.ipv4.tcp_syncookies": "0"}, h.Sysctls)
	must.Eq(t, []string{"no-new-privileges"}, h.SecurityOpt)
	must.True(t, h.ReadonlyRootfs)
	must.Eq(t, container.IpcMode("shareable"), h.IpcMode)
	must.Eq(t, container.PidMode(""), h.PidMode)
	must.Eq(t, []string{"CAP_CHOWN"}, h.CapAdd, must.Sprint("the engine names them in full"))
	must.Eq(t, []string{"CAP_NET_RAW"}, h.CapDrop)
	must.Eq(t, int64(2<<20), h.ShmSize)
	must.True(t, *h.Init)
	must.Eq(t, "/local", c.Config.WorkingDir)
	must.Eq(t, []string{"/testapp", "print", "from the entrypoint"}, c.Config.Entrypoint)
	must.Eq(t, "a", c.Config.Labels["team"])
	must.Eq(t, cfg.AllocID, c.Config.Labels[labelAllocID], must.Sprint("beside the driver's own"))
	must.Eq(t, "local", h.LogConfig.Type)
	must.Eq(t, map[string]string{"max-size": "1m", "max-file": "2"}, h.LogConfig.Config,
		must.Sprint("the driver's bound on the number of files holds"))
	byTarget := map[string]mount.Mount{}
	for _, m := range h.Mounts {
		byTarget[m.Target] = m
	}
	must.Eq(t, mount.TypeTmpfs, byTarget["/scratch"].Type)
	must.Eq(t, int64(1<<20), byTarget["/scratch"].TmpfsOptions.SizeBytes)
	must.Eq(t, mount.TypeBind, byTarget["/etc/app"].Type)
	must.True(t, byTarget["/etc/app"].ReadOnly)
	must.Eq(t, mount.TypeVolume, byTarget["/cache"].Type, must.Sprint("mounts' type defaults to volume, as in Nomad"))
	must.Eq(t, "", byTarget["/cache"].Source, must.Sprint("an anonymous volume, removed with the container"))
}

// TestContainerKeys_HostPathsWhereAllowed: on a node whose plugin config
// enables volumes, a task gets a host device and a host directory.
func TestContainerKeys_HostPathsWhereAllowed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{})
	d := newTestDriver(t, func(c *PluginConfig) { c.VolumesEnabled = true })
	host := beneathtest.HostDir(t)
	cfg, _ := newTaskConfig(t, e.image.Ref, "cat", "/dev/xnull", "print", "device read", "cat", "/host/sentinel")
	cfg.Config["devices"] = []any{map[string]any{"host_path": "/dev/null", "container_path": "/dev/xnull", "cgroup_permissions": "r"}}
	cfg.Config["mount"] = []any{map[string]any{"type": "bind", "source": host, "target": "/host", "readonly": true}}

	c := runAndInspect(t, d, cfg)
	must.StrContains(t, readLog(t, cfg.StdoutPath), "device read")
	must.Eq(t, []container.DeviceMapping{{PathOnHost: "/dev/null", PathInContainer: "/dev/xnull", CgroupPermissions: "r"}}, c.HostConfig.Devices)
	beneathtest.Unchanged(t, host)
}

// TestContainerKeys_NetworkAliases: a task on a user-defined network
// (one the test makes, with no traffic) is known there by its aliases.
func TestContainerKeys_NetworkAliases(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{})
	d := newTestDriver(t, nil)
	name := "drover-test-" + structs.GenerateUUID()[:8]
	ctx, cancel := context.WithTimeout(context.Background(), exitTimeout)
	defer cancel()
	_, err := e.engine.NetworkCreate(ctx, name, client.NetworkCreateOptions{Labels: map[string]string{dockertest.TestLabel: "1"}, Internal: true})
	must.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), exitTimeout)
		defer cancel()
		_, _ = e.engine.NetworkRemove(ctx, name, client.NetworkRemoveOptions{})
	})
	cfg, _ := newTaskConfig(t, e.image.Ref, "print", "ok")
	cfg.Config["network_mode"] = name
	cfg.Config["network_aliases"] = []any{"db", "db-primary"}

	c := runAndInspect(t, d, cfg)
	must.MapContainsKey(t, c.NetworkSettings.Networks, name)
	for _, alias := range []string{"db", "db-primary"} {
		must.SliceContains(t, c.NetworkSettings.Networks[name].Aliases, alias)
	}
}

// TestContainerKeys_RefusedBeforeAnyContainer: a setting the node does
// not allow fails the start, naming it, and no container is made.
func TestContainerKeys_RefusedBeforeAnyContainer(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{})
	d := newTestDriver(t, nil)
	cfg, _ := newTaskConfig(t, e.image.Ref, "print", "ran")
	cfg.Config["sysctl"] = map[string]any{"net.core.somaxconn": "4096"}
	err := startRefused(t, d, cfg)
	must.ErrorContains(t, err, `config key "sysctl": net.core.somaxconn not allowed on this node (plugin "docker" config allow_sysctls`)
	must.False(t, containerExists(t, e.engine, containerName(cfg)))
}

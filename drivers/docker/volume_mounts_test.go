package docker

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/internal/dockertest"
	"github.com/drover-io/drover/structs"
)

// TestVolumeMounts_ReadOnlyHonoured runs real containers with a host
// volume: mounted read-write, the task's file reaches the host directory;
// mounted read-only, the task can read it and its write fails.
func TestVolumeMounts_ReadOnlyHonoured(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{})
	d := newTestDriver(t, nil)
	host := t.TempDir()
	must.NoError(t, os.Chmod(host, 0o777))

	rw, _ := newTaskConfig(t, e.image.Ref, "write", "/data/out.txt", "from the task")
	rw.Mounts = []*drivers.MountConfig{{TaskPath: "/data", HostPath: host, PropagationMode: structs.VolumeMountPropagationPrivate}}
	runToEnd(t, d, rw)
	b, err := os.ReadFile(filepath.Join(host, "out.txt"))
	must.NoError(t, err)
	must.Eq(t, "from the task", string(b))

	ro, _ := newTaskConfig(t, e.image.Ref, "cat", "/data/out.txt", "write", "/data/out.txt", "overwritten")
	ro.Mounts = []*drivers.MountConfig{{TaskPath: "/data", HostPath: host, Readonly: true}}
	startTask(t, d, ro)
	res := waitResult(t, d, ro.ID)
	must.NotEq(t, 0, res.ExitCode, must.Sprint("the write to a read-only volume succeeded"))
	must.StrContains(t, readLog(t, ro.StdoutPath), "from the task")
	must.StrContains(t, readLog(t, ro.StderrPath), "read-only file system")
	must.NoError(t, d.DestroyTask(ro.ID, true))
	b, err = os.ReadFile(filepath.Join(host, "out.txt"))
	must.NoError(t, err)
	must.Eq(t, "from the task", string(b))
}

// TestVolumeMounts_DestinationsRefused: a destination the job author
// chose may not be relative, unclean, the root, or on the directories
// the driver mounts from the allocation, which the task writes on the
// host; nor may it name a propagation mode Nomad does not have.
func TestVolumeMounts_DestinationsRefused(t *testing.T) {
	host := t.TempDir()
	for _, tc := range []struct {
		mount drivers.MountConfig
		want  string
	}{
		{drivers.MountConfig{TaskPath: "data"}, `volume_mount at "data": the destination must be a clean absolute path other than /`},
		{drivers.MountConfig{TaskPath: "/x/../alloc"}, `the destination must be a clean absolute path`},
		{drivers.MountConfig{TaskPath: "/"}, `the destination must be a clean absolute path other than /`},
		{drivers.MountConfig{TaskPath: "/alloc"}, `volume_mount at "/alloc": the destination overlaps the task's /alloc directory`},
		{drivers.MountConfig{TaskPath: "/local/data"}, `the destination overlaps the task's /local directory`},
		{drivers.MountConfig{TaskPath: "/secrets/x/y"}, `the destination overlaps the task's /secrets directory`},
		{drivers.MountConfig{TaskPath: "/data", PropagationMode: "shared"}, `propagation_mode "shared" is not "private", "host-to-task" or "bidirectional"`},
	} {
		cfg, _ := newTaskConfig(t, "image:tag")
		m := tc.mount
		m.HostPath = host
		cfg.Mounts = []*drivers.MountConfig{&m}
		_, _, err := createOptions(cfg, &taskConfig{Image: "image:tag"}, DefaultPluginConfig())
		must.ErrorContains(t, err, tc.want)
	}

	// Look-alikes of the allocation's directories are fine.
	cfg, _ := newTaskConfig(t, "image:tag")
	cfg.Mounts = []*drivers.MountConfig{
		{TaskPath: "/allocations", HostPath: host, Readonly: true},
		{TaskPath: "/in", HostPath: host, PropagationMode: "host-to-task"},
		{TaskPath: "/both", HostPath: host, PropagationMode: "bidirectional"},
	}
	_, binds, err := createOptions(cfg, &taskConfig{Image: "image:tag"}, DefaultPluginConfig())
	must.NoError(t, err)
	must.Eq(t, []bindSpec{
		{source: host, target: "/allocations", readOnly: true, propagation: "rprivate", what: `volume_mount at "/allocations"`},
		{source: host, target: "/in", propagation: "rslave", what: `volume_mount at "/in"`},
		{source: host, target: "/both", propagation: "rshared", what: `volume_mount at "/both"`},
	}, binds[len(binds)-3:])
}

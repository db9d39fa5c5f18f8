package exec

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/drivers/exec/isolate"
)

// TestExec_VolumesReadOnlyHonoured: an isolated task writes a read-write
// host volume, reads a read-only one and cannot write it.
func TestExec_VolumesReadOnlyHonoured(t *testing.T) {
	requireIsolation(t)
	d := newTestDriver(t, nil)
	rw, ro := t.TempDir(), t.TempDir()
	must.NoError(t, os.WriteFile(filepath.Join(ro, "in.txt"), []byte("input\n"), 0o644))

	cfg := newShellTask(t, `echo out > /srv/rw/out.txt && cat /srv/ro/in.txt && if echo x > /srv/ro/x; then echo wrote; fi`)
	cfg.Mounts = []*drivers.MountConfig{
		{TaskPath: "/srv/rw", HostPath: rw, PropagationMode: "private"},
		{TaskPath: "/srv/ro", HostPath: ro, Readonly: true},
	}
	startTask(t, d, cfg)
	res := waitResult(t, d, cfg.ID)
	must.Eq(t, 0, res.ExitCode, must.Sprint(stderr(cfg)))
	must.Eq(t, "input\n", stdout(t, cfg))
	must.StrContains(t, stderr(cfg), "Read-only file system")
	b, err := os.ReadFile(filepath.Join(rw, "out.txt"))
	must.NoError(t, err)
	must.Eq(t, "out\n", string(b))
	_, err = os.Stat(filepath.Join(ro, "x"))
	must.True(t, os.IsNotExist(err))
}

// TestExec_VolumeThroughALinkStaysInTheRoot: the task directory holds a
// link (as a task's earlier run could leave) where the volume's
// destination leads; the mount point is resolved inside the task's root,
// never on the host directory the link names.
func TestExec_VolumeThroughALinkStaysInTheRoot(t *testing.T) {
	requireIsolation(t)
	d := newTestDriver(t, nil)
	vol, host := t.TempDir(), t.TempDir()
	cfg := newShellTask(t, `ls /srv/data`)
	must.NoError(t, os.Symlink(host, filepath.Join(cfg.TaskDir, "srv")))
	must.NoError(t, os.WriteFile(filepath.Join(vol, "seen"), nil, 0o644))
	cfg.Mounts = []*drivers.MountConfig{{TaskPath: "/srv/data", HostPath: vol}}
	_, err := d.StartTask(cfg)
	if err == nil {
		t.Cleanup(func() { _ = d.DestroyTask(cfg.ID, true) })
		waitResult(t, d, cfg.ID)
	}
	entries, rerr := os.ReadDir(host)
	must.NoError(t, rerr)
	must.SliceEmpty(t, entries, must.Sprint("a mount point was made through the link, on the host"))
}

func TestExec_VolumeDestinationsRefused(t *testing.T) {
	for _, tc := range []struct{ dest, mode, want string }{
		{"data", "", `volume_mount at "data": the destination must be a clean absolute path other than /`},
		{"/a/../b", "", `the destination must be a clean absolute path`},
		{"/", "", `the destination must be a clean absolute path other than /`},
		{"/alloc", "", `volume_mount at "/alloc": the destination is the task's /alloc directory, or in it`},
		{"/local/x", "", `the task's /local directory, or in it`},
		{"/proc/self", "", `the task's /proc directory, or in it`},
		{"/.supervisor", "", `the task's /.supervisor directory, or in it`},
		{"/data", "bidirectional", `propagation_mode "bidirectional" is not supported by the exec driver`},
	} {
		_, err := volumes([]*drivers.MountConfig{{TaskPath: tc.dest, HostPath: "/srv", PropagationMode: tc.mode}})
		must.ErrorContains(t, err, tc.want)
	}
	got, err := volumes([]*drivers.MountConfig{{TaskPath: "/localdata", HostPath: "/srv", Readonly: true}})
	must.NoError(t, err)
	must.Eq(t, []isolate.Volume{{HostPath: "/srv", Dest: "/localdata", ReadOnly: true}}, got)
}

package docker

import (
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"
	"golang.org/x/sys/unix"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/internal/beneath"
	"github.com/drover-io/drover/internal/beneath/beneathtest"
)

// stagingTask is a task whose allocation directory the test lays out
// itself; its container is never made.
func stagingTask(t *testing.T) *drivers.TaskConfig {
	t.Helper()
	root := t.TempDir()
	cfg := &drivers.TaskConfig{ID: "a1/web/1", AllocID: "a1", Name: "web",
		AllocDir: filepath.Join(root, "alloc"), TaskDir: filepath.Join(root, "web")}
	for _, dir := range []string{cfg.AllocDir, filepath.Join(cfg.TaskDir, "local"), filepath.Join(cfg.TaskDir, "secrets")} {
		must.NoError(t, os.MkdirAll(dir, 0o755))
	}
	return cfg
}

// volumeBinds are the task's binds with volumes, on a node that enables
// host paths.
func volumeBinds(t *testing.T, cfg *drivers.TaskConfig, volumes ...string) []bindSpec {
	t.Helper()
	conf := specConfig(t, map[string]any{"volumes": toAny(volumes)})
	binds, err := containerBinds(cfg, conf, true)
	must.NoError(t, err)
	return binds
}

func newTestMounter(t *testing.T, dir string) *mounter {
	t.Helper()
	m, err := newMounter(dir, testLogger(t))
	must.NoError(t, err)
	t.Cleanup(m.close)
	return m
}

// TestMounter_StagesWhatItOpened: each source is mounted, by what the
// driver opened, on a mount point of the driver's own, which release
// takes away without touching the allocation.
func TestMounter_StagesWhatItOpened(t *testing.T) {
	m := newTestMounter(t, "")
	cfg := stagingTask(t)
	must.NoError(t, os.WriteFile(filepath.Join(cfg.TaskDir, "local", "app.conf"), []byte("conf"), 0o644))
	binds := volumeBinds(t, cfg, "local/app.conf:/etc/app.conf:ro", "/srv:/srv")

	mounts, release, err := m.stage(cfg, "c1", binds)
	must.NoError(t, err)
	must.Len(t, len(binds), mounts)
	for i, mnt := range mounts[:4] {
		must.Eq(t, filepath.Join(m.dir, "c1", []string{"0", "1", "2", "3"}[i]), mnt.Source)
	}
	must.Eq(t, "/srv", mounts[4].Source, must.Sprint("a host path goes as it is"))
	must.True(t, mounts[3].ReadOnly)
	b, err := os.ReadFile(mounts[3].Source)
	must.NoError(t, err)
	must.Eq(t, "conf", string(b), must.Sprint("a file is mounted on a file"))
	must.NoError(t, os.WriteFile(filepath.Join(mounts[0].Source, "through-mount"), []byte("x"), 0o644))
	must.FileExists(t, filepath.Join(cfg.AllocDir, "through-mount"))

	release()
	must.SliceEmpty(t, mountsUnder(t, m.dir))
	_, err = os.Stat(filepath.Join(m.dir, "c1"))
	must.ErrorIs(t, err, os.ErrNotExist)
	must.FileExists(t, filepath.Join(cfg.AllocDir, "through-mount"), must.Sprint("the allocation keeps its files"))
	must.FileExists(t, filepath.Join(cfg.TaskDir, "local", "app.conf"))
}

// TestMounter_RefusesWhatIsNotTheAllocations: a volume whose source is a
// link out, a device, a named pipe or a hard link is refused, and
// nothing of the start is left mounted.
func TestMounter_RefusesWhatIsNotTheAllocations(t *testing.T) {
	m := newTestMounter(t, "")
	cfg := stagingTask(t)
	host := beneathtest.HostDir(t)
	local := filepath.Join(cfg.TaskDir, "local")
	must.NoError(t, os.Symlink(host, filepath.Join(local, "out")))
	must.NoError(t, syscall.Mkfifo(filepath.Join(local, "fifo"), 0o644))
	must.NoError(t, os.Link(filepath.Join(host, "sentinel"), filepath.Join(local, "hard")))
	must.NoError(t, syscall.Mknod(filepath.Join(local, "disk"), syscall.S_IFBLK|0o600, 8<<8))

	cases := map[string]string{
		"local/out":  "leaves its directory",
		"local/fifo": "is a named pipe: only directories and regular files can be mounted",
		"local/disk": "is a device: only directories and regular files can be mounted",
		"local/hard": "is a hard link",
	}
	for src, want := range cases {
		_, _, err := m.stage(cfg, "c1", volumeBinds(t, cfg, src+":/x"))
		must.ErrorContains(t, err, want, must.Sprint(src))
		must.ErrorContains(t, err, `config key "volumes": entry 0 ("`+src+`")`)
		must.SliceEmpty(t, mountsUnder(t, m.dir), must.Sprint(src))
		_, err = os.Stat(filepath.Join(m.dir, "c1"))
		must.ErrorIs(t, err, os.ErrNotExist, must.Sprint(src))
	}
	must.NoError(t, os.Remove(filepath.Join(local, "hard")))
	beneathtest.Unchanged(t, host)
}

func TestMounter_TaskDirectoriesFollowNoLink(t *testing.T) {
	m := newTestMounter(t, "")
	cfg := stagingTask(t)
	must.NoError(t, os.MkdirAll(filepath.Join(cfg.AllocDir, "data"), 0o755))
	must.NoError(t, os.RemoveAll(filepath.Join(cfg.TaskDir, "secrets")))
	// A link inside the allocation, even: the task's own directories are
	// the client's, never links.
	must.NoError(t, os.Symlink("../alloc/data", filepath.Join(cfg.TaskDir, "secrets")))
	_, _, err := m.stage(cfg, "c1", volumeBinds(t, cfg))
	must.ErrorIs(t, err, beneath.ErrSymlink)
	must.ErrorContains(t, err, "the task's secrets directory")
	must.SliceEmpty(t, mountsUnder(t, m.dir))
}

// TestMounter_SweepsWhatACrashLeft: a driver that died between its
// mount and the container's start leaves the mount; the next driver
// takes it away, and the allocation keeps its files.
func TestMounter_SweepsWhatACrashLeft(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mounts")
	cfg := stagingTask(t)
	must.NoError(t, os.WriteFile(filepath.Join(cfg.AllocDir, "keep"), nil, 0o644))
	crashed, err := newMounter(dir, testLogger(t))
	must.NoError(t, err)
	_, _, err = crashed.stage(cfg, "c1", volumeBinds(t, cfg))
	must.NoError(t, err)
	must.Len(t, 3, mountsUnder(t, dir))

	newTestMounter(t, dir)
	must.SliceEmpty(t, mountsUnder(t, dir))
	entries, err := os.ReadDir(dir)
	must.NoError(t, err)
	must.SliceEmpty(t, entries)
	must.FileExists(t, filepath.Join(cfg.AllocDir, "keep"))
	fi, err := os.Stat(dir)
	must.NoError(t, err)
	must.Eq(t, os.FileMode(0o700)|os.ModeDir, fi.Mode())
}

// TestCanMount drops CAP_SYS_ADMIN from one thread's effective set (the
// goroutine keeps the thread, which goes with it) and asks there.
func TestCanMount(t *testing.T) {
	must.NoError(t, canMount(), must.Sprint("the tests run as root"))
	errCh := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
		var data [2]unix.CapUserData
		if err := unix.Capget(&hdr, &data[0]); err != nil {
			errCh <- err
			return
		}
		data[0].Effective &^= 1 << unix.CAP_SYS_ADMIN
		if err := unix.Capset(&hdr, &data[0]); err != nil {
			errCh <- err
			return
		}
		errCh <- canMount()
	}()
	must.ErrorContains(t, <-errCh, "needs the agent to run as root (CAP_SYS_ADMIN)")
}

// BenchmarkMounter_StageRelease measures what the driver adds to a
// container's start: resolving and mounting a task's three directories,
// then unmounting and removing them.
func BenchmarkMounter_StageRelease(b *testing.B) {
	m, err := newMounter("", hclog.NewNullLogger())
	must.NoError(b, err)
	defer m.close()
	root := b.TempDir()
	cfg := &drivers.TaskConfig{AllocDir: filepath.Join(root, "alloc"), TaskDir: filepath.Join(root, "web")}
	for _, dir := range []string{cfg.AllocDir, filepath.Join(cfg.TaskDir, "local"), filepath.Join(cfg.TaskDir, "secrets")} {
		must.NoError(b, os.MkdirAll(dir, 0o755))
	}
	binds, err := containerBinds(cfg, &taskConfig{}, false)
	must.NoError(b, err)
	for b.Loop() {
		_, release, err := m.stage(cfg, "bench", binds)
		if err != nil {
			b.Fatal(err)
		}
		release()
	}
}

package docker

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/moby/moby/client"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/internal/beneath"
	"github.com/drover-io/drover/internal/beneath/beneathtest"
	"github.com/drover-io/drover/internal/dockertest"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

// A docker task writes its allocation directory as root: its /alloc is
// the group's alloc/, shared with its siblings, and a volume can give it
// more of the allocation (".." is the whole of it). These tests attack
// the host the way such a task would: a real container leaves links in
// its allocation directory to a directory of the machine the test made,
// and a later run of the task, or a sibling, asks the driver for them.
// Nothing outside the allocation may be read or written.

// siblingConfig is a task of cfg's allocation (sharing its alloc/ and
// logs) named name, running testapp with args.
func siblingConfig(t *testing.T, cfg *drivers.TaskConfig, name string, args ...string) *drivers.TaskConfig {
	t.Helper()
	root := cfg.AllocRoot()
	sib := *cfg
	sib.ID = cfg.AllocID + "/" + name + "/" + structs.GenerateUUID()[:8]
	sib.Name = name
	sib.Config = map[string]any{"image": cfg.Config["image"], "args": toAny(args), "labels": cfg.Config["labels"]}
	sib.TaskDir = filepath.Join(root, name)
	sib.StdoutPath = filepath.Join(root, "alloc", "logs", name+".stdout")
	sib.StderrPath = filepath.Join(root, "alloc", "logs", name+".stderr")
	for _, dir := range []string{filepath.Join(sib.TaskDir, "local"), filepath.Join(sib.TaskDir, "secrets")} {
		must.NoError(t, os.MkdirAll(dir, 0o755))
	}
	return &sib
}

// rerun is the next run of cfg's task (a restart): a new ID, the same
// directories, running testapp with args.
func rerun(cfg *drivers.TaskConfig, args ...string) *drivers.TaskConfig {
	next := *cfg
	next.ID = cfg.AllocID + "/" + cfg.Name + "/" + structs.GenerateUUID()[:8]
	next.Config = map[string]any{"image": cfg.Config["image"], "args": toAny(args), "labels": cfg.Config["labels"]}
	return &next
}

// runToEnd starts the task and waits for it to exit 0.
func runToEnd(t *testing.T, d *Driver, cfg *drivers.TaskConfig) {
	t.Helper()
	startTask(t, d, cfg)
	finish(t, d, cfg)
}

// gated is testapp's script args, run once the test lets it: after the
// driver has set the task up (its logs among it), as a task that plants
// its links while it runs does.
func gated(args ...string) []string {
	return append([]string{"await", "/local/go"}, args...)
}

// runGated starts the task, whose script is gated, lets it go once the
// start has returned, and waits for it to exit 0.
func runGated(t *testing.T, d *Driver, cfg *drivers.TaskConfig) {
	t.Helper()
	startTask(t, d, cfg)
	must.NoError(t, os.WriteFile(filepath.Join(cfg.TaskDir, "local", "go"), nil, 0o644))
	finish(t, d, cfg)
}

// finish waits for the task to exit 0, and destroys it.
func finish(t *testing.T, d *Driver, cfg *drivers.TaskConfig) {
	t.Helper()
	res := waitResult(t, d, cfg.ID)
	must.Eq(t, 0, res.ExitCode, must.Sprintf("stderr: %s", readLog(t, cfg.StderrPath)))
	must.NoError(t, d.DestroyTask(cfg.ID, true))
}

// startRefused starts the task, which the driver must refuse, and
// removes whatever container the start left, should it not.
func startRefused(t *testing.T, d *Driver, cfg *drivers.TaskConfig) error {
	t.Helper()
	_, err := d.StartTask(cfg)
	t.Cleanup(func() { removeTaskContainer(t, cfg) })
	if err == nil {
		// Let the container do its worst, so that the test shows it.
		waitResult(t, d, cfg.ID)
	}
	return err
}

// TestHostPaths_SiblingVolumeThroughLink: a task leaves links in the
// group's alloc/ to a directory of the machine, absolute and climbing
// out; a sibling task's volumes name them. The driver refuses both.
func TestHostPaths_SiblingVolumeThroughLink(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{})
	d := newTestDriver(t, nil)
	host := beneathtest.HostDir(t)

	planter, _ := newTaskConfig(t, e.image.Ref,
		"symlink", host, "/alloc/abs",
		"symlink", "../../../../../../../../../../../.."+host, "/alloc/up")
	runToEnd(t, d, planter)

	for _, src := range []string{"../alloc/abs", "../alloc/up"} {
		sib := siblingConfig(t, planter, "sidecar", "write", "/host/pwned", "by the sidecar", "cat", "/host/sentinel")
		sib.Config["volumes"] = []any{src + ":/host"}
		err := startRefused(t, d, sib)
		beneathtest.Unchanged(t, host)
		must.StrNotContains(t, readLog(t, sib.StdoutPath), "host", must.Sprint("the host file was read"))
		must.ErrorIs(t, err, beneath.ErrEscapes, must.Sprintf("volume %s", src))
		must.ErrorContains(t, err, `config key "volumes": entry 0 ("`+src+`")`)
	}
}

// TestHostPaths_RestartAfterAllocDirReplaced: a task that has the whole
// allocation directory as a volume (".."), as Nomad allows, replaces the
// group's alloc/ and its own .docker state directory with links to a
// directory of the machine. Its next run must not get that directory as
// its /alloc (in the report that led here, it was the machine's /), and
// the driver must write nothing there.
func TestHostPaths_RestartAfterAllocDirReplaced(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{})
	d := newTestDriver(t, nil)
	host := beneathtest.HostDir(t)

	cfg, _ := newTaskConfig(t, e.image.Ref, gated(
		"rename", "/all/alloc", "/all/alloc.old",
		"symlink", host, "/all/alloc",
		"symlink", host, "/all/web/.docker")...)
	cfg.Config["volumes"] = []any{"..:/all"}
	// The first run's logs stay in the alloc/ it renamed.
	cfg.StdoutPath, cfg.StderrPath = "", ""
	runGated(t, d, cfg)

	next := rerun(cfg, "write", "/alloc/pwned", "by the next run", "cat", "/alloc/sentinel")
	err := startRefused(t, d, next)
	beneathtest.Unchanged(t, host)
	must.ErrorIs(t, err, beneath.ErrSymlink)
	must.ErrorContains(t, err, "the allocation's alloc directory")
}

// TestHostPaths_LogLinksReplaced: a task leaves its own log file as a
// link to a file of the machine, and its sibling's log directory as a
// link to a directory of the machine. The next run's output goes to a
// log file of the allocation; the sibling does not start.
func TestHostPaths_LogLinksReplaced(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{})
	d := newTestDriver(t, nil)
	host := beneathtest.HostDir(t)

	cfg, _ := newTaskConfig(t, e.image.Ref, gated("symlink", filepath.Join(host, "sentinel"), "/alloc/logs/web.stdout.0")...)
	runGated(t, d, cfg)
	next := rerun(cfg, "print", "second run")
	runToEnd(t, d, next)
	must.Eq(t, "second run\n", readLog(t, next.StdoutPath))
	beneathtest.Unchanged(t, host)

	planter := rerun(cfg, gated("rename", "/alloc/logs", "/alloc/logs.old", "symlink", host, "/alloc/logs")...)
	planter.StdoutPath, planter.StderrPath = "", ""
	must.NoError(t, os.Remove(filepath.Join(cfg.TaskDir, "local", "go")))
	runGated(t, d, planter)
	sib := siblingConfig(t, cfg, "sidecar", "print", "sidecar output")
	err := startRefused(t, d, sib)
	beneathtest.Unchanged(t, host)
	must.ErrorIs(t, err, beneath.ErrSymlink)
	must.ErrorContains(t, err, "open log directory")
}

// TestHostPaths_EngineGetsTheDriversMounts: the engine is handed the
// driver's own mount points, never a path in the allocation; they are
// gone once the container has started, and the container keeps its
// directories.
func TestHostPaths_EngineGetsTheDriversMounts(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{})
	d := newTestDriver(t, nil)
	cfg, _ := newTaskConfig(t, e.image.Ref,
		"await", "/local/go",
		"write", "/alloc/late.txt", "alloc after the start",
		"write", "/local/late.txt", "local after the start",
		"cat", "/app/version")
	// A link inside the allocation is fine for a volume.
	must.NoError(t, os.MkdirAll(filepath.Join(cfg.TaskDir, "local", "v1"), 0o755))
	must.NoError(t, os.WriteFile(filepath.Join(cfg.TaskDir, "local", "v1", "version"), []byte("v1"), 0o644))
	must.NoError(t, os.Symlink("v1", filepath.Join(cfg.TaskDir, "local", "current")))
	cfg.Config["volumes"] = []any{"local/current:/app:ro"}

	h := startTask(t, d, cfg)
	var st driverState
	must.NoError(t, h.GetDriverState(&st))
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	insp, err := e.engine.ContainerInspect(ctx, st.ContainerID, client.ContainerInspectOptions{})
	must.NoError(t, err)
	var sources []string
	for _, m := range insp.Container.Mounts {
		sources = append(sources, m.Source)
		must.StrHasPrefix(t, d.mounts.dir+"/", m.Source, must.Sprintf("mount %s", m.Destination))
	}
	must.Len(t, 4, sources)
	must.SliceEmpty(t, mountsUnder(t, d.mounts.dir), must.Sprint("the driver's mounts are gone once the container started"))
	entries, err := os.ReadDir(d.mounts.dir)
	must.NoError(t, err)
	must.SliceEmpty(t, entries)

	must.NoError(t, os.WriteFile(filepath.Join(cfg.TaskDir, "local", "go"), nil, 0o644))
	res := waitResult(t, d, cfg.ID)
	must.Eq(t, 0, res.ExitCode, must.Sprintf("stderr: %s", readLog(t, cfg.StderrPath)))
	for path, want := range map[string]string{
		filepath.Join(cfg.AllocDir, "late.txt"):         "alloc after the start",
		filepath.Join(cfg.TaskDir, "local", "late.txt"): "local after the start",
	} {
		b, err := os.ReadFile(path)
		must.NoError(t, err)
		must.Eq(t, want, string(b))
	}
	must.Eq(t, "v1", readLog(t, cfg.StdoutPath))
}

// mountsUnder lists the mount points of this mount namespace under dir.
func mountsUnder(t *testing.T, dir string) []string {
	t.Helper()
	f, err := os.Open("/proc/self/mountinfo")
	must.NoError(t, err)
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 4 && strings.HasPrefix(fields[4], dir+"/") {
			out = append(out, fields[4])
		}
	}
	must.NoError(t, sc.Err())
	slices.Sort(out)
	return out
}

// TestHostPaths_RecoverAfterLogDirReplaced: while no agent watches it,
// the task replaces alloc/logs with a link to a directory of the
// machine. The next agent writes nothing there, and does not leave the
// container running unwatched.
func TestHostPaths_RecoverAfterLogDirReplaced(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dockertest.ImageOptions{})
	host := beneathtest.HostDir(t)
	first := newTestDriver(t, nil)
	cfg, _ := newTaskConfig(t, e.image.Ref, gated(
		"rename", "/alloc/logs", "/alloc/logs.old",
		"symlink", host, "/alloc/logs",
		"print", "written while detached",
		"sleep", "100s")...)
	h := startTask(t, first, cfg)
	first.Shutdown()
	must.NoError(t, os.WriteFile(filepath.Join(cfg.TaskDir, "local", "go"), nil, 0o644))
	name := containerName(cfg)
	waitfor.True(t, "output written while detached", func() bool { return engineLogHas(t, e, name, "written while detached") })

	err := newTestDriver(t, nil).RecoverTask(h.Copy())
	beneathtest.Unchanged(t, host)
	must.ErrorIs(t, err, beneath.ErrSymlink)
	running, _, _ := engineState(t, e, name)
	must.False(t, running, must.Sprint("the container runs on unwatched"))
}

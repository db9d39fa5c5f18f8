package allocdir

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/beneath"
)

// A task writes its allocation directory: it can leave a link where the
// client will later make, chmod or chown one of the layout's directories.
// These tests plant such links to a host directory the test made, as a
// task of an earlier run or a sibling task would, and check that the
// client refuses them and leaves the host directory as it was.

// hostDir is a directory standing for one of the machine's: it holds a
// local/ subdirectory, so that a task directory redirected to it would
// find one, and its state is recorded to compare with later.
type hostDir struct {
	path string
	mode fs.FileMode
}

func newHostDir(t *testing.T) *hostDir {
	t.Helper()
	h := &hostDir{path: t.TempDir(), mode: 0o750}
	must.NoError(t, os.Mkdir(filepath.Join(h.path, TaskLocalName), 0o750))
	for _, p := range []string{h.path, filepath.Join(h.path, TaskLocalName)} {
		must.NoError(t, os.Chmod(p, h.mode))
	}
	return h
}

// unchanged fails t unless the host directory and its local/ have the
// mode and owner they had, and it holds nothing new.
func (h *hostDir) unchanged(t *testing.T) {
	t.Helper()
	entries, err := os.ReadDir(h.path)
	must.NoError(t, err)
	must.SliceLen(t, 1, entries, must.Sprintf("nothing may be made in %s", h.path))
	for _, p := range []string{h.path, filepath.Join(h.path, TaskLocalName)} {
		fi, err := os.Stat(p)
		must.NoError(t, err)
		must.Eq(t, h.mode|fs.ModeDir, fi.Mode(), must.Sprintf("mode of %s", p))
		must.Eq(t, uint32(os.Geteuid()), fi.Sys().(*syscall.Stat_t).Uid, must.Sprintf("owner of %s", p))
	}
}

func plant(t *testing.T, target, link string) {
	t.Helper()
	must.NoError(t, os.RemoveAll(link))
	must.NoError(t, os.Symlink(target, link))
}

func TestAllocDir_BuildRefusesLinks(t *testing.T) {
	for _, rel := range []string{"alloc", "alloc/tmp", "alloc/data", "alloc/logs"} {
		t.Run(rel, func(t *testing.T) {
			host := newHostDir(t)
			d, err := New(t.TempDir(), "a1")
			must.NoError(t, err)
			must.NoError(t, d.Build())
			plant(t, host.path, filepath.Join(d.AllocDir, rel))

			// The agent restarts, or the allocation is restored.
			err = d.Build()
			must.ErrorIs(t, err, beneath.ErrSymlink)
			host.unchanged(t)
		})
	}
}

func TestTaskDir_BuildRefusesLinks(t *testing.T) {
	for _, rel := range []string{"web", "web/local", "web/secrets", "web/tmp"} {
		t.Run(rel, func(t *testing.T) {
			host := newHostDir(t)
			d, td := builtTaskDir(t)
			plant(t, host.path, filepath.Join(d.AllocDir, rel))

			// The task restarts: its directories are built again.
			err := td.Build()
			must.ErrorIs(t, err, beneath.ErrSymlink)
			must.StrContains(t, err.Error(), `build directory of task "web"`)
			host.unchanged(t)
		})
	}
}

// TestTaskDir_GiveToRefusesLinks: a task with a user of the machine gets
// its directories; one whose directory a task replaced with a link must
// not get the directory the link names.
func TestTaskDir_GiveToRefusesLinks(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving directories away needs root; CI runs as root")
	}
	for _, rel := range []string{"web", "web/local", "alloc/data"} {
		t.Run(rel, func(t *testing.T) {
			host := newHostDir(t)
			d, td := builtTaskDir(t)
			plant(t, host.path, filepath.Join(d.AllocDir, rel))

			err := td.GiveTo(Owner{UID: 65534, GID: 65534})
			must.ErrorIs(t, err, beneath.ErrSymlink)
			host.unchanged(t)
		})
	}
}

func TestTaskDir_Open(t *testing.T) {
	host := newHostDir(t)
	_, td := builtTaskDir(t)

	secrets, err := td.Open(TaskSecretsName)
	must.NoError(t, err)
	must.Eq(t, td.SecretsDir, secrets.Name())
	secrets.Close()

	plant(t, host.path, td.SecretsDir)
	_, err = td.Open(TaskSecretsName)
	must.ErrorIs(t, err, beneath.ErrSymlink)
	host.unchanged(t)
}

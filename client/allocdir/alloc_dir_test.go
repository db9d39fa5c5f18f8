package allocdir

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/shoenig/test/must"
)

func TestAllocDir_BuildAndDestroy(t *testing.T) {
	root := t.TempDir()
	d, err := New(root, "a1")
	must.NoError(t, err)
	must.NoError(t, d.Build())
	must.NoError(t, d.Build(), must.Sprint("a second Build must succeed"))

	for _, dir := range []string{"alloc", "alloc/data", "alloc/logs", "alloc/tmp"} {
		fi, err := os.Stat(filepath.Join(root, "a1", dir))
		must.NoError(t, err)
		must.True(t, fi.IsDir())
	}
	must.Eq(t, filepath.Join(root, "a1", "alloc", "logs"), d.LogDir)

	must.NoError(t, d.Destroy())
	_, err = os.Stat(d.AllocDir)
	must.True(t, os.IsNotExist(err))
}

// builtTaskDir returns a built allocation directory, a1, and its built
// task directory, web.
func builtTaskDir(t *testing.T) (*AllocDir, *TaskDir) {
	t.Helper()
	d, err := New(t.TempDir(), "a1")
	must.NoError(t, err)
	must.NoError(t, d.Build())
	td, err := d.TaskDir("web")
	must.NoError(t, err)
	must.NoError(t, td.Build())
	return d, td
}

func TestTaskDir_Build(t *testing.T) {
	d, td := builtTaskDir(t)
	must.NoError(t, td.Build())

	cases := []struct {
		path string
		mode os.FileMode
	}{
		{td.Dir, 0o755},
		{td.LocalDir, 0o755},
		{td.SecretsDir, 0o700},
		{td.TmpDir, 0o777},
	}
	for _, c := range cases {
		fi, err := os.Stat(c.path)
		must.NoError(t, err)
		must.True(t, fi.IsDir())
		must.Eq(t, c.mode, fi.Mode().Perm(), must.Sprintf("mode of %s", c.path))
	}

	stdout, stderr := td.LogPaths()
	must.Eq(t, filepath.Join(d.LogDir, "web.stdout"), stdout)
	must.Eq(t, filepath.Join(d.LogDir, "web.stderr"), stderr)
}

func TestNames_AreSinglePathElements(t *testing.T) {
	for _, bad := range []string{"", ".", "..", "a/b", `a\b`, "../x"} {
		_, err := New(t.TempDir(), bad)
		must.Error(t, err, must.Sprintf("alloc ID %q", bad))

		d, err := New(t.TempDir(), "a1")
		must.NoError(t, err)
		_, err = d.TaskDir(bad)
		must.Error(t, err, must.Sprintf("task name %q", bad))
	}
}

func TestTaskDir_Resolve(t *testing.T) {
	d, err := New("/data", "a1")
	must.NoError(t, err)
	td, err := d.TaskDir("web")
	must.NoError(t, err)

	cases := []struct {
		rel     string
		want    string
		outside bool
	}{
		{rel: "local/", want: "web/local"},
		{rel: "local/../secrets/x", want: "web/secrets/x"},
		{rel: "", want: "web"},
		{rel: ".", want: "web"},
		{rel: "../alloc/data", want: "alloc/data"},
		{rel: "../other", want: "other"},
		{rel: "local/../../alloc", want: "alloc"},
		{rel: "..", want: "."},
		{rel: "../../other", outside: true},
		{rel: "local/../../../other", outside: true},
		{rel: "/etc", outside: true},
		{rel: "/data/a1/web/local", outside: true},
	}
	for _, c := range cases {
		got, err := td.Resolve(c.rel)
		if c.outside {
			must.ErrorIs(t, err, ErrOutsideDir, must.Sprintf("rel %q", c.rel))
			continue
		}
		must.NoError(t, err)
		must.Eq(t, c.want, got)
	}
}

func TestTaskDir_GiveTo(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving directories away needs root; CI runs as root")
	}
	d, err := New(t.TempDir(), "4b1c2d3e-0000-4000-8000-000000000001")
	must.NoError(t, err)
	must.NoError(t, d.Build())
	td, err := d.TaskDir("web")
	must.NoError(t, err)
	must.NoError(t, td.Build())

	must.NoError(t, td.GiveTo(Owner{UID: 65534, GID: 65534}))
	for _, dir := range []string{td.Dir, td.LocalDir, td.SecretsDir, td.TmpDir} {
		info, err := os.Stat(dir)
		must.NoError(t, err)
		st := info.Sys().(*syscall.Stat_t)
		must.Eq(t, uint32(65534), st.Uid, must.Sprint(dir))
		must.Eq(t, uint32(65534), st.Gid, must.Sprint(dir))
	}
	secrets, err := os.Stat(td.SecretsDir)
	must.NoError(t, err)
	must.Eq(t, os.FileMode(0o700), secrets.Mode().Perm())
	data, err := os.Stat(filepath.Join(d.SharedDir, SharedDataName))
	must.NoError(t, err)
	must.Eq(t, os.FileMode(0o777)|os.ModeSticky, data.Mode()&(os.ModePerm|os.ModeSticky))
	// The alloc's own directory and its logs stay the agent's.
	logs, err := os.Stat(d.LogDir)
	must.NoError(t, err)
	must.Eq(t, uint32(0), logs.Sys().(*syscall.Stat_t).Uid)
}

package taskrunner

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/allocdir"
	"github.com/drover-io/drover/internal/beneath"
	"github.com/drover-io/drover/internal/beneath/beneathtest"
	"github.com/drover-io/drover/structs"
)

// A task writes its directories, and whatever it left where an artifact
// goes must not lead the client's writes out of the allocation, block
// it, or make it write to a device.

// fetchWithin runs fetchArtifact, failing t if it does not return within
// a bound generous for a loaded machine: what an open of a named pipe
// would do.
func fetchWithin(t *testing.T, art *structs.TaskArtifact, td *taskDirEnv) error {
	t.Helper()
	errCh := make(chan error, 1)
	clients := testArtifactClients(t)
	go func() { errCh <- fetchArtifact(context.Background(), clients, art, td.env, td.dir, nil) }()
	select {
	case err := <-errCh:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("fetching the artifact blocked")
		return nil
	}
}

// TestFetchArtifact_ReplacesWhatTheTaskLeft: the destination file is a
// named pipe, a device or a link that a task left there. The artifact
// replaces it, and nothing else is opened.
func TestFetchArtifact_ReplacesWhatTheTaskLeft(t *testing.T) {
	srv, _ := artifactServer(t, map[string][]byte{"/f/run.sh": []byte("artifact")})
	plantings := map[string]func(t *testing.T, path, host string){
		"named pipe": func(t *testing.T, path, _ string) {
			must.NoError(t, syscall.Mkfifo(path, 0o644))
		},
		"link to a host file": func(t *testing.T, path, host string) {
			must.NoError(t, os.Symlink(filepath.Join(host, "sentinel"), path))
		},
		"device": func(t *testing.T, path, _ string) {
			if os.Geteuid() != 0 {
				t.Skip("making a device node needs root; CI runs as root")
			}
			// /dev/null's numbers stand for a disk's.
			must.NoError(t, syscall.Mknod(path, syscall.S_IFCHR|0o644, 1<<8|3))
		},
	}
	for name, plantAt := range plantings {
		t.Run(name, func(t *testing.T) {
			host := beneathtest.HostDir(t)
			td := newTaskDirEnv(t)
			dest := filepath.Join(td.dir.LocalDir, "run.sh")
			plantAt(t, dest, host)

			err := fetchWithin(t, &structs.TaskArtifact{GetterSource: srv.URL + "/f/run.sh"}, td)
			must.NoError(t, err)
			fi, err := os.Lstat(dest)
			must.NoError(t, err)
			must.True(t, fi.Mode().IsRegular(), must.Sprintf("%s is a regular file now, not %s", dest, fi.Mode()))
			must.Eq(t, "artifact", readFile(t, dest))
			beneathtest.Unchanged(t, host)
		})
	}
}

// TestFetchArtifact_TaskDirLinkedOut: a sibling task replaced this task's
// directory with a link to a directory of the machine. Nothing of the
// download may land there, not even for a moment: the server looks for
// it there while it sends the body.
func TestFetchArtifact_TaskDirLinkedOut(t *testing.T) {
	host := beneathtest.HostDir(t)
	seen := make(chan []string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("first half "))
		w.(http.Flusher).Flush()
		seen <- waitForNewEntry(r.Context(), host)
		w.Write([]byte("second half"))
	}))
	defer srv.Close()

	td := newTaskDirEnv(t)
	must.NoError(t, os.RemoveAll(td.dir.Dir))
	must.NoError(t, os.Symlink(host, td.dir.Dir))

	// The destination itself is fine: only the download's way is not.
	err := fetchWithin(t, &structs.TaskArtifact{GetterSource: srv.URL + "/f/data.bin", RelativeDest: "../alloc/data"}, td)
	select {
	case names := <-seen:
		must.Eq(t, []string{"sentinel"}, names, must.Sprint("the download was made in the directory the link names"))
	case <-time.After(30 * time.Second):
		t.Fatal("the server never served the artifact")
	}
	must.ErrorIs(t, err, beneath.ErrSymlink)
	beneathtest.Unchanged(t, host)
}

// waitForNewEntry returns the names in dir once it holds more than its
// sentinel, or when ctx ends (the client gave up on the download), or
// after a bound.
func waitForNewEntry(ctx context.Context, dir string) []string {
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		entries, _ := os.ReadDir(dir)
		names := make([]string, 0, len(entries))
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if len(names) > 1 {
			return names
		}
		select {
		case <-ctx.Done():
			return names
		case <-deadline.C:
			return names
		case <-tick.C:
		}
	}
}

// taskDirEnv is a built task directory and its task's environment.
type taskDirEnv struct {
	dir *allocdir.TaskDir
	env *taskEnv
}

func newTaskDirEnv(t *testing.T) *taskDirEnv {
	t.Helper()
	td := artifactTaskDir(t)
	task := testTask("web", nil)
	return &taskDirEnv{dir: td, env: buildTaskEnv(testAlloc(structs.JobTypeBatch, task), task, td, nil)}
}

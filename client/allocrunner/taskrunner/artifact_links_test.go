package taskrunner

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/allocdir"
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
// directory with a link to a directory of the machine. The download is
// staged where no task reaches, so an artifact bound elsewhere in the
// allocation is placed there; one bound through the link is refused once
// the link is resolved, and nothing lands in the machine's directory
// either way.
func TestFetchArtifact_TaskDirLinkedOut(t *testing.T) {
	host := beneathtest.HostDir(t)
	srv, _ := artifactServer(t, map[string][]byte{"/f/data.bin": []byte("artifact")})
	td := newTaskDirEnv(t)
	must.NoError(t, os.RemoveAll(td.dir.Dir))
	must.NoError(t, os.Symlink(host, td.dir.Dir))

	err := fetchWithin(t, &structs.TaskArtifact{GetterSource: srv.URL + "/f/data.bin", RelativeDest: "../alloc/data"}, td)
	must.NoError(t, err)
	must.Eq(t, "artifact", readFile(t, filepath.Join(td.dir.SharedDir, "data", "data.bin")))
	beneathtest.Unchanged(t, host)

	for _, dest := range []string{"local/", "${NOMAD_TASK_DIR}/x", "/local/x"} {
		err = fetchWithin(t, &structs.TaskArtifact{GetterSource: srv.URL + "/f/data.bin", RelativeDest: dest}, td)
		must.ErrorContains(t, err, "path escapes from parent", must.Sprint(dest))
		beneathtest.Unchanged(t, host)
	}
}

// Links a task left inside its directory are followed as far as they
// stay in the allocation directory, and refused where they lead out.
func TestFetchArtifact_DestinationLinks(t *testing.T) {
	host := beneathtest.HostDir(t)
	srv, _ := artifactServer(t, map[string][]byte{
		"/f/data.bin": []byte("artifact"),
		"/f/app.tgz":  makeTar(t, true, archiveEntry{name: "bin/tool", body: "tool"}),
	})
	td := newTaskDirEnv(t)
	must.NoError(t, os.Symlink(host, filepath.Join(td.dir.LocalDir, "out")))
	must.NoError(t, os.Symlink("../../alloc/data", filepath.Join(td.dir.LocalDir, "shared")))

	for _, src := range []string{"/f/data.bin", "/f/app.tgz"} {
		err := fetchWithin(t, &structs.TaskArtifact{GetterSource: srv.URL + src, RelativeDest: "local/out"}, td)
		must.ErrorContains(t, err, "path escapes from parent", must.Sprint(src))
		beneathtest.Unchanged(t, host)
	}

	must.NoError(t, fetchWithin(t, &structs.TaskArtifact{GetterSource: srv.URL + "/f/app.tgz", RelativeDest: "local/shared/app"}, td))
	must.Eq(t, "tool", readFile(t, filepath.Join(td.dir.SharedDir, "data", "app", "bin", "tool")))
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

// chown gives every file, directory and link the artifact placed to the
// task's user, and nothing else; without chown they stay the agent's.
func TestFetchArtifact_Chown(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("changing a file's owner needs root; CI runs as root")
	}
	srv, _ := artifactServer(t, map[string][]byte{
		"/f/app.tgz": makeTar(t, true, archiveEntry{name: "bin/tool", body: "tool"}, archiveEntry{name: "bin/link", symlink: true, link: "tool"}),
	})
	owner := &allocdir.Owner{UID: 4242, GID: 4343}
	td := newTaskDirEnv(t)
	must.NoError(t, fetchArtifact(context.Background(), testArtifactClients(t),
		&structs.TaskArtifact{GetterSource: srv.URL + "/f/app.tgz", RelativeDest: "local/app", Chown: true}, td.env, td.dir, owner))
	for _, p := range []string{"app", "app/bin", "app/bin/tool", "app/bin/link"} {
		fi, err := os.Lstat(filepath.Join(td.dir.LocalDir, p))
		must.NoError(t, err)
		st := fi.Sys().(*syscall.Stat_t)
		must.Eq(t, [2]uint32{4242, 4343}, [2]uint32{st.Uid, st.Gid}, must.Sprint(p))
	}
	fi, err := os.Stat(td.dir.LocalDir)
	must.NoError(t, err)
	must.Eq(t, uint32(0), fi.Sys().(*syscall.Stat_t).Uid, must.Sprint("local/ itself is not the artifact's"))

	must.NoError(t, fetchArtifact(context.Background(), testArtifactClients(t),
		&structs.TaskArtifact{GetterSource: srv.URL + "/f/app.tgz", RelativeDest: "local/plain"}, td.env, td.dir, owner))
	fi, err = os.Lstat(filepath.Join(td.dir.LocalDir, "plain", "bin", "tool"))
	must.NoError(t, err)
	must.Eq(t, uint32(0), fi.Sys().(*syscall.Stat_t).Uid, must.Sprint("without chown"))
}

package taskrunner

import (
	"context"
	"fmt"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	getter "github.com/hashicorp/go-getter/v2"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/allocdir"
	"github.com/drover-io/drover/structs"
)

// runGit runs git in dir for a test, with a fixed identity and no
// configuration of the machine's.
func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	must.NoError(t, err, must.Sprintf("git %v: %s", args, out))
	return strings.TrimSpace(string(out))
}

// gitServer serves, over git's smart HTTP protocol (git http-backend
// behind net/http/cgi) on 127.0.0.1, a bare repository repo.git with two
// commits: the first tagged v1 (README "one", sub/dir/file.txt, a link
// inside the repository), the second on main (README "two"). It counts
// the requests it answers.
func gitServer(t *testing.T, extra func(work string)) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	work := filepath.Join(root, "work")
	must.NoError(t, os.MkdirAll(filepath.Join(work, "sub", "dir"), 0o755))
	runGit(t, work, "init", "-q", "-b", "main")
	must.NoError(t, os.WriteFile(filepath.Join(work, "README"), []byte("one"), 0o644))
	must.NoError(t, os.WriteFile(filepath.Join(work, "sub", "dir", "file.txt"), []byte("deep"), 0o755))
	must.NoError(t, os.Symlink("sub/dir/file.txt", filepath.Join(work, "shortcut")))
	if extra != nil {
		extra(work)
	}
	runGit(t, work, "add", "-A")
	runGit(t, work, "commit", "-q", "-m", "one")
	runGit(t, work, "tag", "v1")
	must.NoError(t, os.WriteFile(filepath.Join(work, "README"), []byte("two"), 0o644))
	runGit(t, work, "commit", "-q", "-am", "two")
	runGit(t, root, "clone", "-q", "--bare", "work", "repo.git")

	var requests atomic.Int32
	backend := &cgi.Handler{
		Path: gitPath,
		Args: []string{"http-backend"},
		Env:  []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		backend.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &requests
}

func TestFetchArtifact_Git(t *testing.T) {
	srv, _ := gitServer(t, nil)
	repo := "git::" + srv.URL + "/repo.git"
	cases := []struct {
		name  string
		art   *structs.TaskArtifact
		check func(t *testing.T, td *allocdir.TaskDir)
	}{
		{
			name: "default branch",
			art:  &structs.TaskArtifact{GetterSource: repo, RelativeDest: "local/repo"},
			check: func(t *testing.T, td *allocdir.TaskDir) {
				must.Eq(t, "two", readFile(t, filepath.Join(td.LocalDir, "repo", "README")))
				must.Eq(t, "deep", readFile(t, filepath.Join(td.LocalDir, "repo", "shortcut")))
				must.DirExists(t, filepath.Join(td.LocalDir, "repo", ".git"))
				fi, err := os.Stat(filepath.Join(td.LocalDir, "repo", "sub", "dir", "file.txt"))
				must.NoError(t, err)
				must.Eq(t, os.FileMode(0o755), fi.Mode().Perm(), must.Sprint("modes are kept"))
			},
		},
		{
			name: "ref in the source",
			art:  &structs.TaskArtifact{GetterSource: repo + "?ref=v1", RelativeDest: "local/repo"},
			check: func(t *testing.T, td *allocdir.TaskDir) {
				must.Eq(t, "one", readFile(t, filepath.Join(td.LocalDir, "repo", "README")))
			},
		},
		{
			name: "ref and depth as options",
			art: &structs.TaskArtifact{GetterSource: repo, RelativeDest: "${NOMAD_ALLOC_DIR}/data/repo",
				GetterOptions: map[string]string{"ref": "v1", "depth": "1"}},
			check: func(t *testing.T, td *allocdir.TaskDir) {
				must.Eq(t, "one", readFile(t, filepath.Join(td.SharedDir, "data", "repo", "README")))
				must.FileExists(t, filepath.Join(td.SharedDir, "data", "repo", ".git", "shallow"))
			},
		},
		{
			name: "subdirectory of a tag",
			art:  &structs.TaskArtifact{GetterSource: repo + "//sub/dir?ref=v1", RelativeDest: "local/only"},
			check: func(t *testing.T, td *allocdir.TaskDir) {
				must.Eq(t, "deep", readFile(t, filepath.Join(td.LocalDir, "only", "file.txt")))
				must.FileNotExists(t, filepath.Join(td.LocalDir, "only", "README"))
			},
		},
		{
			name: "one file of the repository in file mode",
			art: &structs.TaskArtifact{GetterSource: repo + "/README?ref=v1", GetterMode: structs.ArtifactModeFile,
				RelativeDest: "local/readme.txt"},
			check: func(t *testing.T, td *allocdir.TaskDir) {
				must.Eq(t, "one", readFile(t, filepath.Join(td.LocalDir, "readme.txt")))
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			td := artifactTaskDir(t)
			env := buildTaskEnv(testAlloc(structs.JobTypeBatch, testTask("web", nil)), testTask("web", nil), td, nil)
			must.NoError(t, fetchArtifact(context.Background(), testArtifactClients(t), c.art, env, td, nil))
			c.check(t, td)
			stale, err := filepath.Glob(filepath.Join(filepath.Dir(td.AllocDir), ".artifact-*"))
			must.NoError(t, err)
			must.SliceEmpty(t, stale, must.Sprint("the staging directory is removed"))
		})
	}
}

func TestFetchArtifact_GitRefused(t *testing.T) {
	t.Run("unknown ref", func(t *testing.T) {
		srv, _ := gitServer(t, nil)
		td := newTaskDirEnv(t)
		err := fetchArtifact(context.Background(), testArtifactClients(t),
			&structs.TaskArtifact{GetterSource: "git::" + srv.URL + "/repo.git?ref=nope"}, td.env, td.dir, nil)
		must.ErrorContains(t, err, `ref "nope": no branch, tag or commit of that name`)
		must.StrNotContains(t, err.Error(), filepath.Dir(td.dir.AllocDir), must.Sprint("the client's paths stay its own"))
	})

	// The client's default policy keeps git off loopback: the guard
	// proxy refuses the connection and the server is never asked.
	t.Run("address policy", func(t *testing.T) {
		srv, requests := gitServer(t, nil)
		td := newTaskDirEnv(t)
		f := newArtifactFetcher(DefaultArtifactConfig())
		t.Cleanup(f.close)
		err := fetchArtifact(context.Background(), f,
			&structs.TaskArtifact{GetterSource: "git::" + srv.URL + "/repo.git", RelativeDest: "local/repo"}, td.env, td.dir, nil)
		must.ErrorContains(t, err, "(loopback) refused by the client's policy (the client's artifact address_denylist)")
		must.Eq(t, 0, requests.Load())
		must.FileNotExists(t, filepath.Join(td.dir.LocalDir, "repo"))
	})

	t.Run("ssh checked before git runs", func(t *testing.T) {
		td := newTaskDirEnv(t)
		f := newArtifactFetcher(DefaultArtifactConfig())
		t.Cleanup(f.close)
		err := fetchArtifact(context.Background(), f,
			&structs.TaskArtifact{GetterSource: "git::ssh://git@127.0.0.1:1/repo.git"}, td.env, td.dir, nil)
		must.ErrorContains(t, err, "connection to 127.0.0.1 (loopback) refused by the client's policy")
	})

	// A link in the repository to a file of the machine is refused
	// where it would be placed; nothing of the clone is left.
	t.Run("link out of the repository", func(t *testing.T) {
		srv, _ := gitServer(t, func(work string) {
			must.NoError(t, os.Symlink("/etc/passwd", filepath.Join(work, "passwd")))
		})
		td := newTaskDirEnv(t)
		err := fetchArtifact(context.Background(), testArtifactClients(t),
			&structs.TaskArtifact{GetterSource: "git::" + srv.URL + "/repo.git", RelativeDest: "local/repo"}, td.env, td.dir, nil)
		must.ErrorIs(t, err, allocdir.ErrOutsideDir)
		must.FileNotExists(t, filepath.Join(td.dir.LocalDir, "repo"))
	})

	// A submodule on the client's own disk (file://) is never cloned.
	t.Run("file submodule", func(t *testing.T) {
		secret := t.TempDir()
		runGit(t, secret, "init", "-q", "-b", "main")
		must.NoError(t, os.WriteFile(filepath.Join(secret, "key"), []byte("host secret"), 0o644))
		runGit(t, secret, "add", "-A")
		runGit(t, secret, "commit", "-q", "-m", "secret")
		srv, _ := gitServer(t, func(work string) {
			runGit(t, work, "-c", "protocol.file.allow=always", "submodule", "add", "-q", "file://"+secret, "secret")
		})
		td := newTaskDirEnv(t)
		err := fetchArtifact(context.Background(), testArtifactClients(t),
			&structs.TaskArtifact{GetterSource: "git::" + srv.URL + "/repo.git", RelativeDest: "local/repo"}, td.env, td.dir, nil)
		must.ErrorContains(t, err, "git submodule")
		must.StrNotContains(t, err.Error(), "Cloning into")
		must.FileNotExists(t, filepath.Join(td.dir.LocalDir, "repo", "secret", "key"))
	})
}

// Sources are claimed as go-getter's getters claim them, less the local
// path, bitbucket and gcs detectors: each by one getter, which reads it
// as the URL it fetches.
func TestArtifactGetters_Detect(t *testing.T) {
	f := testArtifactClients(t)
	detect := func(src string) (string, string, error) {
		req := &getter.Request{Src: src, Pwd: t.TempDir()}
		for _, g := range f.getters(false, nil) {
			ok, err := getter.Detect(req, g)
			if err != nil || ok {
				return fmt.Sprintf("%T", g), req.Src, err
			}
		}
		return "", "", fmt.Errorf("no getter claims %q", src)
	}
	const git, s3, http = "*taskrunner.gitGetter", "*taskrunner.s3Getter", "*getter.HttpGetter"
	cases := map[string][2]string{
		"github.com/hashicorp/nomad":                    {git, "https://github.com/hashicorp/nomad.git"},
		"github.com/hashicorp/nomad?ref=v1.9.0":         {git, "https://github.com/hashicorp/nomad.git?ref=v1.9.0"},
		"git@github.com:hashicorp/nomad.git":            {git, "ssh://git@github.com/hashicorp/nomad.git"},
		"gitlab.com/group/project":                      {git, "https://gitlab.com/group/project.git"},
		"git::https://example.com/repo.git?ref=v1":      {git, "https://example.com/repo.git?ref=v1"},
		"git::github.com/org/repo":                      {git, "https://github.com/org/repo.git"},
		"ssh://git@example.com/repo.git":                {git, "ssh://git@example.com/repo.git"},
		"bucket.s3.amazonaws.com/key":                   {s3, "https://bucket.s3.amazonaws.com/key"},
		"s3::http://127.0.0.1:9000/bucket/key":          {s3, "http://127.0.0.1:9000/bucket/key"},
		"https://bucket.s3.amazonaws.com/key":           {http, "https://bucket.s3.amazonaws.com/key"},
		"https://example.com/app.tar.gz?archive=tar.gz": {http, "https://example.com/app.tar.gz?archive=tar.gz"},
		"https::https://example.com/app.tar.gz":         {http, "https://example.com/app.tar.gz"},
	}
	for src, want := range cases {
		kind, got, err := detect(src)
		must.NoError(t, err, must.Sprint(src))
		must.Eq(t, want, [2]string{kind, got}, must.Sprint(src))
	}
	for _, src := range []string{"./local/file", "/etc/passwd", "file:///etc/passwd", "hg::https://example.com/repo",
		"bitbucket.org/owner/repo", "www.googleapis.com/storage/v1/bucket/object", "gcs::https://www.googleapis.com/storage/v1/b/o"} {
		kind, _, err := detect(src)
		must.Error(t, err, must.Sprintf("%s claimed by %s", src, kind))
	}
}

// A task with a git artifact and an archive artifact runs once both are
// in its directory: the hook drives go-getter for each source kind.
func TestTaskRunner_GitAndArchiveArtifacts(t *testing.T) {
	repo, _ := gitServer(t, nil)
	zipped := makeZip(t, archiveEntry{name: "bin/app", body: "app"})
	files, _ := artifactServer(t, map[string][]byte{"/app.zip": zipped})
	task := testTask("web", map[string]any{"run_for": "1ms"})
	task.Artifacts = []*structs.TaskArtifact{
		{GetterSource: "git::" + repo.URL + "/repo.git", GetterOptions: map[string]string{"ref": "v1"}, RelativeDest: "local/repo"},
		{GetterSource: files.URL + "/app.zip", RelativeDest: "${NOMAD_ALLOC_DIR}/data",
			GetterOptions: map[string]string{"checksum": "sha256:" + sha256Hex(zipped)}},
	}
	h := newBatchHarness(t, task)
	h.run()
	ts := h.waitDead()
	must.False(t, ts.Failed, must.Sprintf("%+v", ts.Events))
	must.Eq(t, "one", readFile(t, filepath.Join(h.taskDir.LocalDir, "repo", "README")))
	must.Eq(t, "app", readFile(t, filepath.Join(h.taskDir.SharedDir, "data", "bin", "app")))
}

package taskrunner

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/allocdir"
	"github.com/drover-io/drover/client/internal/tasktest"
	"github.com/drover-io/drover/internal/netguard"
	"github.com/drover-io/drover/structs"
)

type archiveEntry struct {
	name, body, link string
	dir, symlink     bool
}

func makeTar(t testing.TB, gzipped bool, entries ...archiveEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	var tw *tar.Writer
	var gz *gzip.Writer
	if gzipped {
		gz = gzip.NewWriter(&buf)
		tw = tar.NewWriter(gz)
	} else {
		tw = tar.NewWriter(&buf)
	}
	for _, e := range entries {
		hdr := &tar.Header{Name: e.name, Mode: 0o644, Size: int64(len(e.body)), Typeflag: tar.TypeReg}
		switch {
		case e.dir:
			hdr.Typeflag, hdr.Mode, hdr.Size = tar.TypeDir, 0o755, 0
		case e.symlink:
			hdr.Typeflag, hdr.Linkname, hdr.Size = tar.TypeSymlink, e.link, 0
		}
		must.NoError(t, tw.WriteHeader(hdr))
		if hdr.Typeflag == tar.TypeReg {
			_, err := tw.Write([]byte(e.body))
			must.NoError(t, err)
		}
	}
	must.NoError(t, tw.Close())
	if gz != nil {
		must.NoError(t, gz.Close())
	}
	return buf.Bytes()
}

// gzipped is body, gzip-compressed.
func gzipped(t *testing.T, body string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write([]byte(body))
	must.NoError(t, err)
	must.NoError(t, zw.Close())
	return buf.Bytes()
}

// zstded is body, zstd-compressed.
func zstded(t *testing.T, body []byte) []byte {
	t.Helper()
	zw, err := zstd.NewWriter(nil)
	must.NoError(t, err)
	defer zw.Close()
	return zw.EncodeAll(body, nil)
}

func makeZip(t *testing.T, entries ...archiveEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		w, err := zw.Create(e.name)
		must.NoError(t, err)
		_, err = w.Write([]byte(e.body))
		must.NoError(t, err)
	}
	must.NoError(t, zw.Close())
	return buf.Bytes()
}

// artifactServer serves files by path on 127.0.0.1 and records request
// headers.
func artifactServer(t *testing.T, files map[string][]byte) (*httptest.Server, *http.Header) {
	t.Helper()
	var seen http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = r.Header.Clone()
		body, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, &seen
}

// loopbackAllowed is the default address policy that lets the tests'
// artifact servers, on 127.0.0.1, through.
func loopbackAllowed(t *testing.T) *netguard.Policy {
	t.Helper()
	p, err := netguard.NewPolicy(netguard.DefaultDenylist, []string{"127.0.0.0/8", "::1"})
	must.NoError(t, err)
	return p
}

// testArtifactClients fetches under loopbackAllowed, with the default
// limits.
func testArtifactClients(t *testing.T) *artifactFetcher {
	t.Helper()
	return limitedFetcher(t, *DefaultArtifactConfig())
}

// limitedFetcher fetches under loopbackAllowed with the limits c sets.
func limitedFetcher(t *testing.T, c ArtifactConfig) *artifactFetcher {
	t.Helper()
	c.Addresses = loopbackAllowed(t)
	f := newArtifactFetcher(&c)
	t.Cleanup(f.close)
	return f
}

func artifactTaskDir(t *testing.T) *allocdir.TaskDir {
	t.Helper()
	ad, err := allocdir.New(t.TempDir(), "a1")
	must.NoError(t, err)
	must.NoError(t, ad.Build())
	td, err := ad.TaskDir("web")
	must.NoError(t, err)
	must.NoError(t, td.Build())
	return td
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	must.NoError(t, err)
	return string(b)
}

func TestFetchArtifact(t *testing.T) {
	plain := []byte("#!/bin/sh\necho hi\n")
	tgz := makeTar(t, true,
		archiveEntry{name: "bin/", dir: true},
		archiveEntry{name: "bin/tool", body: "tool"},
		archiveEntry{name: "README", body: "read me"},
		archiveEntry{name: "bin/link", symlink: true, link: "tool"},
	)
	srv, headers := artifactServer(t, map[string][]byte{
		"/files/run.sh":         plain,
		"/files/bundle.tgz":     tgz,
		"/files/bundle.tar":     makeTar(t, false, archiveEntry{name: "a.txt", body: "A"}),
		"/files/bundle.zip":     makeZip(t, archiveEntry{name: "z/one.txt", body: "one"}),
		"/files/raw.tar.gz":     tgz,
		"/files/weird-name":     plain,
		"/files/noextension":    tgz,
		"/files/notes.txt.gz":   gzipped(t, "notes"),
		"/files/bundle.tar.zst": zstded(t, makeTar(t, false, archiveEntry{name: "z.txt", body: "zst"})),
	})
	md5sum := md5.Sum(plain)

	cases := []struct {
		name  string
		art   *structs.TaskArtifact
		check func(t *testing.T, td *allocdir.TaskDir)
	}{
		{
			name: "plain file into local/",
			art:  &structs.TaskArtifact{GetterSource: srv.URL + "/files/run.sh", GetterHeaders: map[string]string{"X-Token": "secret-${NOMAD_TASK_NAME}"}},
			check: func(t *testing.T, td *allocdir.TaskDir) {
				must.Eq(t, string(plain), readFile(t, filepath.Join(td.LocalDir, "run.sh")))
				must.Eq(t, "secret-web", headers.Get("X-Token"), must.Sprint("header values are interpolated"))
			},
		},
		{
			name: "sha256 checksum verified",
			art: &structs.TaskArtifact{GetterSource: srv.URL + "/files/run.sh",
				GetterOptions: map[string]string{"checksum": "sha256:" + sha256Hex(plain)}},
			check: func(t *testing.T, td *allocdir.TaskDir) {
				must.FileExists(t, filepath.Join(td.LocalDir, "run.sh"))
			},
		},
		{
			name: "md5 checksum verified",
			art: &structs.TaskArtifact{GetterSource: srv.URL + "/files/run.sh",
				GetterOptions: map[string]string{"checksum": "md5:" + hex.EncodeToString(md5sum[:])}},
			check: func(t *testing.T, td *allocdir.TaskDir) {
				must.FileExists(t, filepath.Join(td.LocalDir, "run.sh"))
			},
		},
		{
			name: "tar.gz unpacked into destination",
			art:  &structs.TaskArtifact{GetterSource: srv.URL + "/files/bundle.tgz", RelativeDest: "local/app"},
			check: func(t *testing.T, td *allocdir.TaskDir) {
				must.Eq(t, "tool", readFile(t, filepath.Join(td.LocalDir, "app", "bin", "tool")))
				must.Eq(t, "read me", readFile(t, filepath.Join(td.LocalDir, "app", "README")))
				must.Eq(t, "tool", readFile(t, filepath.Join(td.LocalDir, "app", "bin", "link")))
				must.FileNotExists(t, filepath.Join(td.LocalDir, "app", "bundle.tgz"))
			},
		},
		{
			name: "tar unpacked",
			art:  &structs.TaskArtifact{GetterSource: srv.URL + "/files/bundle.tar"},
			check: func(t *testing.T, td *allocdir.TaskDir) {
				must.Eq(t, "A", readFile(t, filepath.Join(td.LocalDir, "a.txt")))
			},
		},
		{
			name: "zip unpacked",
			art:  &structs.TaskArtifact{GetterSource: srv.URL + "/files/bundle.zip", RelativeDest: "${NOMAD_TASK_NAME}-files"},
			check: func(t *testing.T, td *allocdir.TaskDir) {
				must.Eq(t, "one", readFile(t, filepath.Join(td.Dir, "web-files", "z", "one.txt")))
			},
		},
		{
			name: "archive=false keeps the archive",
			art: &structs.TaskArtifact{GetterSource: srv.URL + "/files/raw.tar.gz",
				GetterOptions: map[string]string{"archive": "false"}},
			check: func(t *testing.T, td *allocdir.TaskDir) {
				must.Eq(t, string(tgz), readFile(t, filepath.Join(td.LocalDir, "raw.tar.gz")))
				must.FileNotExists(t, filepath.Join(td.LocalDir, "README"))
			},
		},
		{
			name: "archive option names the kind",
			art: &structs.TaskArtifact{GetterSource: srv.URL + "/files/noextension",
				GetterOptions: map[string]string{"archive": "tgz"}},
			check: func(t *testing.T, td *allocdir.TaskDir) {
				must.Eq(t, "read me", readFile(t, filepath.Join(td.LocalDir, "README")))
			},
		},
		{
			name: "tar.zst in dir mode",
			art:  &structs.TaskArtifact{GetterSource: srv.URL + "/files/bundle.tar.zst", GetterMode: structs.ArtifactModeDir, RelativeDest: "local/z"},
			check: func(t *testing.T, td *allocdir.TaskDir) {
				must.Eq(t, "zst", readFile(t, filepath.Join(td.LocalDir, "z", "z.txt")))
			},
		},
		{
			name: "tgz in dir mode",
			art:  &structs.TaskArtifact{GetterSource: srv.URL + "/files/bundle.tgz", GetterMode: structs.ArtifactModeDir},
			check: func(t *testing.T, td *allocdir.TaskDir) {
				must.Eq(t, "read me", readFile(t, filepath.Join(td.LocalDir, "README")))
			},
		},
		{
			name: "gz file decompressed in file mode",
			art: &structs.TaskArtifact{GetterSource: srv.URL + "/files/notes.txt.gz", GetterMode: structs.ArtifactModeFile,
				RelativeDest: "local/notes.txt"},
			check: func(t *testing.T, td *allocdir.TaskDir) {
				must.Eq(t, "notes", readFile(t, filepath.Join(td.LocalDir, "notes.txt")))
			},
		},
		{
			name: "filename option names the file",
			art: &structs.TaskArtifact{GetterSource: srv.URL + "/files/weird-name",
				GetterOptions: map[string]string{"filename": "run.sh"}},
			check: func(t *testing.T, td *allocdir.TaskDir) {
				must.Eq(t, string(plain), readFile(t, filepath.Join(td.LocalDir, "run.sh")))
			},
		},
		{
			name: "file mode writes to the destination path",
			art: &structs.TaskArtifact{GetterSource: srv.URL + "/files/bundle.tgz",
				GetterMode: structs.ArtifactModeFile, RelativeDest: "local/copy.tgz"},
			check: func(t *testing.T, td *allocdir.TaskDir) {
				must.Eq(t, string(tgz), readFile(t, filepath.Join(td.LocalDir, "copy.tgz")))
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			td := artifactTaskDir(t)
			env := buildTaskEnv(testAlloc(structs.JobTypeBatch, testTask("web", nil)), testTask("web", nil), td, nil)
			must.NoError(t, fetchArtifact(context.Background(), testArtifactClients(t), c.art, env, td, nil))
			c.check(t, td)
			// No download leftovers.
			leftovers, err := filepath.Glob(filepath.Join(td.Dir, ".artifact-*"))
			must.NoError(t, err)
			must.SliceEmpty(t, leftovers)
		})
	}
}

func TestFetchArtifact_Rejects(t *testing.T) {
	plain := []byte("data")
	srv, _ := artifactServer(t, map[string][]byte{
		"/f/data.txt":     plain,
		"/f/escape.tgz":   makeTar(t, true, archiveEntry{name: "../../escaped", body: "x"}),
		"/f/absolute.tar": makeTar(t, false, archiveEntry{name: "/tmp/absolute", body: "x"}),
		"/f/link.tgz":     makeTar(t, true, archiveEntry{name: "evil", symlink: true, link: "/etc"}),
		"/f/uplink.tgz":   makeTar(t, true, archiveEntry{name: "a/evil", symlink: true, link: "../../.."}),
		"/f/escape.zip":   makeZip(t, archiveEntry{name: "../escaped.txt", body: "x"}),
		"/f/data.txt.gz":  gzipped(t, "data"),
	})
	cases := []struct {
		name    string
		art     *structs.TaskArtifact
		wantErr string
		outside bool
	}{
		{name: "unsupported getter", art: &structs.TaskArtifact{GetterSource: "hg::https://example.com/repo"}, wantErr: `getter "hg::" is not supported`},
		{name: "forced file getter", art: &structs.TaskArtifact{GetterSource: "file::/etc/passwd"}, wantErr: `getter "file::" is not supported`},
		{name: "local path", art: &structs.TaskArtifact{GetterSource: "/etc/passwd"}, wantErr: `not a URL nor a source the client recognises`},
		{name: "s3 without credentials", art: &structs.TaskArtifact{GetterSource: "s3::https://s3.amazonaws.com/bucket/key"}, wantErr: `needs its credentials`},
		{name: "file scheme", art: &structs.TaskArtifact{GetterSource: "file:///etc/passwd"}, wantErr: `scheme "file" is not supported`},
		{name: "git over file://", art: &structs.TaskArtifact{GetterSource: "git::file:///var/lib/repo"}, wantErr: `scheme "file" is not supported`},
		{name: "not found", art: &structs.TaskArtifact{GetterSource: srv.URL + "/f/missing.txt"}, wantErr: "404"},
		{name: "checksum mismatch", art: &structs.TaskArtifact{GetterSource: srv.URL + "/f/data.txt",
			GetterOptions: map[string]string{"checksum": "sha256:" + sha256Hex([]byte("other"))}}, wantErr: "checksum mismatch"},
		{name: "bad checksum type", art: &structs.TaskArtifact{GetterSource: srv.URL + "/f/data.txt",
			GetterOptions: map[string]string{"checksum": "crc32:abcd"}}, wantErr: `checksum type "crc32" is not supported`},
		{name: "bad checksum length", art: &structs.TaskArtifact{GetterSource: srv.URL + "/f/data.txt",
			GetterOptions: map[string]string{"checksum": "sha256:abcd"}}, wantErr: "64 hex digits"},
		{name: "destination outside the allocation directory", art: &structs.TaskArtifact{GetterSource: srv.URL + "/f/data.txt",
			RelativeDest: "../../other"}, outside: true},
		{name: "destination climbing out through the shared directory", art: &structs.TaskArtifact{GetterSource: srv.URL + "/f/data.txt",
			RelativeDest: "../alloc/../../other"}, outside: true},
		{name: "absolute destination climbing out", art: &structs.TaskArtifact{GetterSource: srv.URL + "/f/data.txt",
			RelativeDest: "/../../etc"}, outside: true},
		{name: "tar entry climbing out", art: &structs.TaskArtifact{GetterSource: srv.URL + "/f/escape.tgz"}, outside: true},
		{name: "absolute tar entry", art: &structs.TaskArtifact{GetterSource: srv.URL + "/f/absolute.tar"}, outside: true},
		{name: "absolute symlink", art: &structs.TaskArtifact{GetterSource: srv.URL + "/f/link.tgz"}, outside: true},
		{name: "symlink climbing out", art: &structs.TaskArtifact{GetterSource: srv.URL + "/f/uplink.tgz"}, outside: true},
		{name: "zip entry climbing out", art: &structs.TaskArtifact{GetterSource: srv.URL + "/f/escape.zip"}, outside: true},
		{name: "dir mode without archive", art: &structs.TaskArtifact{GetterSource: srv.URL + "/f/data.txt",
			GetterMode: structs.ArtifactModeDir}, wantErr: "needs an archive"},
		{name: "gz file in any mode", art: &structs.TaskArtifact{GetterSource: srv.URL + "/f/data.txt.gz"},
			wantErr: `a gz file decompresses to one file: use mode "file"`},
		{name: "bad archive option", art: &structs.TaskArtifact{GetterSource: srv.URL + "/f/data.txt",
			GetterOptions: map[string]string{"archive": "rar"}}, wantErr: `archive option "rar"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			ad, err := allocdir.New(root, "a1")
			must.NoError(t, err)
			td, err := ad.TaskDir("web")
			must.NoError(t, err)
			must.NoError(t, td.Build())
			env := buildTaskEnv(testAlloc(structs.JobTypeBatch, testTask("web", nil)), testTask("web", nil), td, nil)

			err = fetchArtifact(context.Background(), testArtifactClients(t), c.art, env, td, nil)
			if c.outside {
				must.ErrorIs(t, err, allocdir.ErrOutsideDir)
			} else {
				must.ErrorContains(t, err, c.wantErr)
			}
			// Nothing was written next to the task directory.
			entries, err := os.ReadDir(filepath.Join(root, "a1"))
			must.NoError(t, err)
			must.Len(t, 1, entries)
			must.FileNotExists(t, filepath.Join(root, "escaped"))
		})
	}
}

func TestFetchArtifact_CancelledDownload(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("partial"))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)

	td := artifactTaskDir(t)
	env := buildTaskEnv(testAlloc(structs.JobTypeBatch, testTask("web", nil)), testTask("web", nil), td, nil)
	ctx, cancel := context.WithCancel(context.Background())
	errCh := make(chan error, 1)
	go func() {
		errCh <- fetchArtifact(ctx, testArtifactClients(t), &structs.TaskArtifact{GetterSource: srv.URL + "/slow.bin"}, env, td, nil)
	}()
	cancel()
	err := <-errCh
	must.True(t, errors.Is(err, context.Canceled), must.Sprintf("got %v", err))
	must.FileNotExists(t, filepath.Join(td.LocalDir, "slow.bin"))
}

func TestTaskRunner_ArtifactFailureFailsTask(t *testing.T) {
	srv, _ := artifactServer(t, map[string][]byte{})
	task := testTask("web", map[string]any{"run_for": "1s"})
	task.Artifacts = []*structs.TaskArtifact{{GetterSource: srv.URL + "/missing.bin"}}
	h := newBatchHarness(t, task)
	ts, ev := h.waitFailedDownload()
	must.StrContains(t, ev.DownloadError, "404")
	must.NotNil(t, tasktest.LastEvent(ts, structs.TaskDownloadingArtifacts))
}

// waitFailedDownload runs the task and waits for it to fail before it
// starts, on its artifacts. It returns the task's state and its Failed
// Artifact Download event.
func (h *harness) waitFailedDownload() (*structs.TaskState, *structs.TaskEvent) {
	h.t.Helper()
	h.run()
	ts := h.waitDead()
	must.True(h.t, ts.Failed)
	must.True(h.t, ts.StartedAt.IsZero())
	ev := tasktest.LastEvent(ts, structs.TaskArtifactDownloadFailed)
	must.NotNil(h.t, ev, must.Sprintf("events: %v", ts.Events))
	return ts, ev
}

func TestTaskRunner_ArtifactsFetchedOnce(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Write([]byte("payload"))
	}))
	defer srv.Close()

	task := testTask("web", map[string]any{"run_for": "1ms", "exit_code": 1})
	task.RestartPolicy = &structs.RestartPolicy{Attempts: 2, Interval: time.Hour, Delay: 0, Mode: structs.RestartPolicyModeFail}
	task.Artifacts = []*structs.TaskArtifact{{GetterSource: srv.URL + "/payload.txt"}}
	h := newBatchHarness(t, task)
	h.run()
	ts := h.waitDead()
	must.Eq(t, uint64(2), ts.Restarts)
	must.Eq(t, 1, requests.Load(), must.Sprint("restarts reuse the artifacts"))
	must.Eq(t, "payload", readFile(t, filepath.Join(h.taskDir.LocalDir, "payload.txt")))
}

// runningSlowDownload runs a task whose one artifact's server never
// answers, and returns once the download has begun.
func runningSlowDownload(t *testing.T) *harness {
	t.Helper()
	arrived := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)

	task := testTask("web", map[string]any{"run_for": "1s"})
	task.Artifacts = []*structs.TaskArtifact{{GetterSource: srv.URL + "/huge.bin"}}
	h := newBatchHarness(t, task)
	h.run()
	<-arrived
	return h
}

func TestTaskRunner_KillCutsSlowDownload(t *testing.T) {
	h := runningSlowDownload(t)
	h.kill(nil)
	ts := h.tr.TaskState()
	must.Eq(t, structs.TaskStateDead, ts.State)
	must.False(t, ts.Failed)
	must.True(t, ts.StartedAt.IsZero())
	must.Nil(t, tasktest.LastEvent(ts, structs.TaskArtifactDownloadFailed))
}

// The agent stopping cuts a download short too, and leaves the task to the
// next agent: not started, not dead.
func TestTaskRunner_ShutdownCutsSlowDownload(t *testing.T) {
	h := runningSlowDownload(t)
	h.tr.Shutdown()
	ts := h.tr.TaskState()
	must.NotEq(t, structs.TaskStateDead, ts.State)
	must.True(t, ts.StartedAt.IsZero())
}

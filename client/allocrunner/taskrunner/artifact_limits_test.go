package taskrunner

import (
	"archive/zip"
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/allocdir"
	"github.com/drover-io/drover/internal/netguard"
	"github.com/drover-io/drover/structs"
)

// zeros is an archive entry of n zero bytes: what a decompression bomb is
// made of, as it compresses to almost nothing.
func zeros(name string, n int) archiveEntry {
	return archiveEntry{name: name, body: strings.Repeat("\x00", n)}
}

// treeOf lists the paths under dir, relative to it.
func treeOf(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		out = append(out, rel)
		return err
	})
	must.NoError(t, err)
	return out
}

func TestFetchArtifact_DestinationInTheAllocationDirectory(t *testing.T) {
	srv, _ := artifactServer(t, map[string][]byte{
		"/f/data.txt":  []byte("shared"),
		"/f/tools.tgz": makeTar(t, true, archiveEntry{name: "bin/tool", body: "tool"}),
	})
	td := artifactTaskDir(t)
	env := buildTaskEnv(testAlloc(structs.JobTypeBatch, testTask("web", nil)), testTask("web", nil), td, nil)

	// The documented example: the group's shared directory, beside the
	// task directory.
	must.NoError(t, fetchArtifact(context.Background(), testArtifactClients(t),
		&structs.TaskArtifact{GetterSource: srv.URL + "/f/data.txt", RelativeDest: "../alloc/data"}, env, td, nil))
	must.Eq(t, "shared", readFile(t, filepath.Join(td.SharedDir, "data", "data.txt")))

	must.NoError(t, fetchArtifact(context.Background(), testArtifactClients(t),
		&structs.TaskArtifact{GetterSource: srv.URL + "/f/tools.tgz", RelativeDest: "local/../../alloc/tools"}, env, td, nil))
	must.Eq(t, "tool", readFile(t, filepath.Join(td.SharedDir, "tools", "bin", "tool")))
}

// Destinations as Nomad resolves them: its directory variables name
// their directories, an absolute path is within the task directory, and
// a variable holding a host path inside the allocation directory is
// kept.
func TestFetchArtifact_NomadDestinations(t *testing.T) {
	srv, _ := artifactServer(t, map[string][]byte{"/f/data.txt": []byte("x")})
	td := artifactTaskDir(t)
	task := testTask("web", nil)
	task.Env = map[string]string{"SHARED": "${NOMAD_ALLOC_DIR}/data", "ELSEWHERE": "/srv/x"}
	env := buildTaskEnv(testAlloc(structs.JobTypeBatch, task), task, td, nil)
	cases := map[string]string{
		"${NOMAD_ALLOC_DIR}/data":   filepath.Join(td.SharedDir, "data", "data.txt"),
		"${NOMAD_ALLOC_DIR}":        filepath.Join(td.SharedDir, "data.txt"),
		"${NOMAD_TASK_DIR}/conf":    filepath.Join(td.LocalDir, "conf", "data.txt"),
		"${NOMAD_SECRETS_DIR}":      filepath.Join(td.SecretsDir, "data.txt"),
		"/local/abs":                filepath.Join(td.LocalDir, "abs", "data.txt"),
		"/etc":                      filepath.Join(td.Dir, "etc", "data.txt"),
		"${SHARED}/viaenv":          filepath.Join(td.SharedDir, "data", "viaenv", "data.txt"),
		"${ELSEWHERE}":              filepath.Join(td.Dir, "srv", "x", "data.txt"),
		"local/../../alloc/data/up": filepath.Join(td.SharedDir, "data", "up", "data.txt"),
	}
	for dest, want := range cases {
		must.NoError(t, fetchArtifact(context.Background(), testArtifactClients(t),
			&structs.TaskArtifact{GetterSource: srv.URL + "/f/data.txt", RelativeDest: dest}, env, td, nil), must.Sprint(dest))
		must.Eq(t, "x", readFile(t, want), must.Sprint(dest))
	}
	for _, dest := range []string{"${NOMAD_ALLOC_DIR}/../../x", "/../../x", "../../x"} {
		err := fetchArtifact(context.Background(), testArtifactClients(t),
			&structs.TaskArtifact{GetterSource: srv.URL + "/f/data.txt", RelativeDest: dest}, env, td, nil)
		must.ErrorIs(t, err, allocdir.ErrOutsideDir, must.Sprint(dest))
	}
}

func TestFetchArtifact_DecompressionLimits(t *testing.T) {
	const mb = 1_000_000
	bombTgz := makeTar(t, true, zeros("a", 4*mb), zeros("b", 4*mb))
	manyTgz := makeTar(t, true,
		archiveEntry{name: "d/", dir: true},
		archiveEntry{name: "d/1", body: "1"}, archiveEntry{name: "d/2", body: "2"},
		archiveEntry{name: "d/3", body: "3"}, archiveEntry{name: "d/4", body: "4"})
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	for _, name := range []string{"z/1", "z/2"} {
		w, err := zw.Create(name)
		must.NoError(t, err)
		_, err = w.Write(bytes.Repeat([]byte{0}, 4*mb))
		must.NoError(t, err)
	}
	must.NoError(t, zw.Close())
	exact := makeZip(t, archiveEntry{name: "one", body: "12345"}, archiveEntry{name: "two", body: "67890"})

	srv, _ := artifactServer(t, map[string][]byte{
		"/f/bomb.tgz":  bombTgz,
		"/f/many.tgz":  manyTgz,
		"/f/bomb.zip":  zbuf.Bytes(),
		"/f/exact.zip": exact,
	})
	must.Less(t, 100_000, len(bombTgz), must.Sprint("the bomb is small"))

	cases := []struct {
		name    string
		source  string
		limits  ArtifactConfig
		wantErr string
	}{
		{"tar.gz past the size limit", "/f/bomb.tgz", ArtifactConfig{DecompressionSizeLimit: 5 * mb},
			"unpack tar.gz archive: entry \"b\": archive exceeds the client's artifact limits: it unpacks to more than 5 MB (the client's artifact decompression_size_limit)"},
		{"zip past the size limit", "/f/bomb.zip", ArtifactConfig{DecompressionSizeLimit: 5 * mb},
			"unpack zip archive: entry \"z/2\": archive exceeds the client's artifact limits: it unpacks to more than 5 MB (the client's artifact decompression_size_limit)"},
		{"tar.gz past the entry limit", "/f/many.tgz", ArtifactConfig{DecompressionFileCountLimit: 4},
			"unpack tar.gz archive: archive exceeds the client's artifact limits: more than 4 entries (the client's artifact decompression_file_count_limit)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			td := artifactTaskDir(t)
			env := buildTaskEnv(testAlloc(structs.JobTypeBatch, testTask("web", nil)), testTask("web", nil), td, nil)
			err := fetchArtifact(context.Background(), limitedFetcher(t, c.limits),
				&structs.TaskArtifact{GetterSource: srv.URL + c.source, RelativeDest: "local/out"}, env, td, nil)
			must.ErrorIs(t, err, ErrArchiveLimit)
			must.EqError(t, err, c.wantErr)
			// Nothing of it reaches the task directory: the unpack is
			// staged, and what it had unpacked is gone again.
			must.FileNotExists(t, filepath.Join(td.LocalDir, "out"))
		})
	}

	t.Run("exactly at the limits", func(t *testing.T) {
		td := artifactTaskDir(t)
		env := buildTaskEnv(testAlloc(structs.JobTypeBatch, testTask("web", nil)), testTask("web", nil), td, nil)
		limits := ArtifactConfig{DecompressionSizeLimit: 10, DecompressionFileCountLimit: 2}
		must.NoError(t, fetchArtifact(context.Background(), limitedFetcher(t, limits),
			&structs.TaskArtifact{GetterSource: srv.URL + "/f/exact.zip"}, env, td, nil))
		must.Eq(t, "67890", readFile(t, filepath.Join(td.LocalDir, "two")))
	})

	t.Run("zero is no limit", func(t *testing.T) {
		td := artifactTaskDir(t)
		env := buildTaskEnv(testAlloc(structs.JobTypeBatch, testTask("web", nil)), testTask("web", nil), td, nil)
		must.NoError(t, fetchArtifact(context.Background(), limitedFetcher(t, ArtifactConfig{}),
			&structs.TaskArtifact{GetterSource: srv.URL + "/f/bomb.tgz"}, env, td, nil))
		fi, err := os.Stat(filepath.Join(td.LocalDir, "b"))
		must.NoError(t, err)
		must.Eq(t, int64(4*mb), fi.Size())
	})
}

// TestTaskRunner_DecompressionBombFailsTheTask runs a task whose artifact
// unpacks past the client's limit: the task fails before it starts, with
// a task event that says which limit stopped it.
func TestTaskRunner_DecompressionBombFailsTheTask(t *testing.T) {
	srv, _ := artifactServer(t, map[string][]byte{
		"/bomb.tar.gz": makeTar(t, true, zeros("zeros", 2_000_000)),
	})
	task := testTask("web", map[string]any{"run_for": "1s"})
	task.Artifacts = []*structs.TaskArtifact{{GetterSource: srv.URL + "/bomb.tar.gz"}}
	h := newBatchHarness(t, task, func(c *Config) {
		c.Artifact = &ArtifactConfig{DecompressionSizeLimit: 1_000_000, DecompressionFileCountLimit: 10, Addresses: loopbackAllowed(t)}
	})
	_, ev := h.waitFailedDownload()
	must.Eq(t, "artifact 0 ("+srv.URL+"/bomb.tar.gz): unpack tar.gz archive: entry \"zeros\": archive exceeds the client's artifact limits: it unpacks to more than 1 MB (the client's artifact decompression_size_limit)",
		ev.DownloadError)
	must.FileNotExists(t, filepath.Join(h.taskDir.LocalDir, "zeros"))
}

func TestTaskRunner_DefaultArtifactLimits(t *testing.T) {
	task := testTask("web", nil)
	h := newBatchHarness(t, task, func(c *Config) { c.Artifact = nil })
	var hook *artifactHook
	for _, ph := range h.tr.prestartHooks {
		if a, ok := ph.(*artifactHook); ok {
			hook = a
		}
	}
	must.NotNil(t, hook)
	must.Eq(t, DefaultArtifactConfig(), hook.config)
	must.Eq(t, &ArtifactConfig{DecompressionSizeLimit: 100_000_000_000, DecompressionFileCountLimit: 4096, Addresses: netguard.DefaultPolicy(),
		HTTPReadTimeout: 30 * time.Minute, HTTPMaxSize: 100_000_000_000, GitTimeout: 30 * time.Minute, S3Timeout: 30 * time.Minute}, hook.config,
		must.Sprint("Nomad's defaults: 100GB and 4096, 30m, 100GB; the default address policy"))
}

package agent

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/config"
)

// artifactJob is a batch job of one raw_exec task running script, with
// the given artifacts, that neither restarts nor reschedules.
func artifactJob(id, script string, artifacts ...map[string]any) map[string]any {
	task := rawExecTask("t", "/bin/sh", "-c", script)
	task["Artifacts"] = artifacts
	return map[string]any{
		"ID": id, "Name": id, "Type": "batch", "Datacenters": []string{"dc1"},
		"TaskGroups": []any{map[string]any{
			"Name": "g", "Count": 1,
			"RestartPolicy":    map[string]any{"Attempts": 0, "Interval": int64(time.Hour), "Delay": int64(time.Second), "Mode": "fail"},
			"ReschedulePolicy": map[string]any{"Attempts": 0, "Unlimited": false},
			"Tasks":            []any{task},
		}},
	}
}

// serveFiles serves files by path on 127.0.0.1 until the test ends.
func serveFiles(t *testing.T, files map[string][]byte) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestArtifact_RefusedAtRegister submits artifacts the client would not
// fetch: each is a 400 from the server naming the task, the artifact and
// the field, before anything reaches raft or a client.
func TestArtifact_RefusedAtRegister(t *testing.T) {
	a := testAgent(t)
	const where = `invalid job: 1 problem: Task group "g" task "t" artifact #2: `
	cases := []struct {
		name     string
		artifact map[string]any
		want     string
	}{
		{"file source", map[string]any{"GetterSource": "file:///etc/shadow"},
			`source "file:///etc/shadow": scheme "file" is not supported; the client fetches http(s) URLs, git (git::URL, git@host:path, github.com/...), and s3 objects with their credentials`},
		{"hg getter", map[string]any{"GetterSource": "hg::https://example.com/repo"},
			`source "hg::https://example.com/repo": getter "hg::" is not supported; the client fetches http(s) URLs, git (git::URL, git@host:path, github.com/...), and s3 objects with their credentials`},
		{"s3 without credentials", map[string]any{"GetterSource": "s3::https://s3.amazonaws.com/bucket/key"},
			`source "s3::https://s3.amazonaws.com/bucket/key": an s3 source needs its credentials, aws_access_key_id and aws_access_key_secret, in its query or options: the client does not lend a job its own`},
		{"absolute destination climbing out", map[string]any{"GetterSource": "https://example.com/f", "RelativeDest": "/../../etc/cron.d"},
			`destination "/../../etc/cron.d" escapes the allocation directory`},
		{"destination leaving the allocation", map[string]any{"GetterSource": "https://example.com/f", "RelativeDest": "../../../etc"},
			`destination "../../../etc" escapes the allocation directory`},
		{"option the client does not know", map[string]any{"GetterSource": "https://example.com/f", "GetterOptions": map[string]string{"sshkeys": "x"}},
			`options: "sshkeys" is not supported; the client reads checksum, archive, ref, depth, sshkey, filename and the s3 options aws_access_key_id, aws_access_key_secret, aws_access_token, region, version`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			job := artifactJob("artifacts", "true", map[string]any{"GetterSource": "https://example.com/ok"}, tc.artifact)
			for _, path := range []string{"/v1/jobs", "/v1/validate/job"} {
				resp := do(t, a, http.MethodPut, path, map[string]any{"Job": job})
				if path == "/v1/validate/job" {
					// Nomad's validate answers 200 with the problems listed.
					var out api.JobValidateResponse
					must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
					must.NoError(t, json.Unmarshal(resp.body, &out), must.Sprint(resp))
					must.Eq(t, []string{`Task group "g" task "t" artifact #2: ` + tc.want}, out.ValidationErrors)
					continue
				}
				must.Eq(t, http.StatusBadRequest, resp.code, must.Sprint(resp))
				must.Eq(t, where+tc.want+"\n", string(resp.body))
			}
			resp := do(t, a, http.MethodGet, "/v1/job/artifacts", nil)
			must.Eq(t, http.StatusNotFound, resp.code, must.Sprint("nothing was registered"))
		})
	}
}

// TestArtifact_DestinationInTheSharedDirectory runs the documented
// example end to end: an artifact with destination "../alloc/data" lands
// in the group's shared directory, where the task reads it.
func TestArtifact_DestinationInTheSharedDirectory(t *testing.T) {
	a := testClientAgent(t)
	url := serveFiles(t, map[string][]byte{"/payload.txt": []byte("from the artifact\n")})
	registerJob(t, a, artifactJob("shared", `cat "$NOMAD_ALLOC_DIR/data/payload.txt"`,
		map[string]any{"GetterSource": url + "/payload.txt", "RelativeDest": "../alloc/data"}))

	stubs := waitJobAllocs(t, a, "shared", "allocation finished", func(s []*api.AllocationListStub) bool {
		return len(s) == 1 && (s[0].ClientStatus == api.AllocClientStatusComplete || s[0].ClientStatus == api.AllocClientStatusFailed)
	})
	var alloc api.Allocation
	get(t, a, "/v1/allocation/"+stubs[0].ID, &alloc)
	must.Eq(t, api.AllocClientStatusComplete, alloc.ClientStatus, must.Sprintf("%+v", alloc.TaskStates["t"]))
	resp := do(t, a, http.MethodGet, "/v1/client/fs/logs/"+alloc.ID+"?task=t&type=stdout&plain=true", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	must.Eq(t, "from the artifact\n", string(resp.body))
}

// TestArtifact_DecompressionBombStopsAtTheLimit serves a tar.gz of a few
// kilobytes that unpacks to 50 MB to a client whose limit is 10 MB: the
// unpack stops there, the task fails before it starts with a task event
// naming the limit, and the agent goes on answering.
func TestArtifact_DecompressionBombStopsAtTheLimit(t *testing.T) {
	a := testClientAgent(t, func(c *config.Config) {
		c.Client.Artifact.DecompressionSizeLimit = 10_000_000
	})
	bomb := gzippedTar(t, "zeros", 50_000_000)
	must.Less(t, 200_000, len(bomb))
	url := serveFiles(t, map[string][]byte{"/bomb.tar.gz": bomb})
	registerJob(t, a, artifactJob("bomb", "echo should not run",
		map[string]any{"GetterSource": url + "/bomb.tar.gz"}))

	alloc, failed := failedDownload(t, a, "bomb")
	must.Eq(t, "artifact 0 ("+url+"/bomb.tar.gz): unpack tar.gz archive: entry \"zeros\": archive exceeds the client's artifact limits: it unpacks to more than 10 MB (the client's artifact decompression_size_limit)",
		failed.DownloadError)

	// Nothing of it is left in the task directory.
	resp := do(t, a, http.MethodGet, "/v1/client/fs/ls/"+alloc.ID+"?path=t/local", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	must.Eq(t, "[]\n", string(resp.body))

	resp = do(t, a, http.MethodGet, "/v1/agent/self", nil)
	must.Eq(t, http.StatusOK, resp.code)
}

// failedDownload waits for job's one allocation to fail with its task "t"
// never started, and returns the allocation and the task's Failed
// Artifact Download event.
func failedDownload(t *testing.T, a *Agent, job string) (*api.Allocation, *api.TaskEvent) {
	t.Helper()
	stubs := waitJobAllocs(t, a, job, "allocation failed", func(s []*api.AllocationListStub) bool {
		return len(s) == 1 && s[0].ClientStatus == api.AllocClientStatusFailed
	})
	var alloc api.Allocation
	get(t, a, "/v1/allocation/"+stubs[0].ID, &alloc)
	ts := alloc.TaskStates["t"]
	must.NotNil(t, ts)
	must.True(t, ts.StartedAt.IsZero(), must.Sprint("the task never started"))
	var failed *api.TaskEvent
	for _, ev := range ts.Events {
		if ev.Type == "Failed Artifact Download" {
			failed = ev
		}
	}
	must.NotNil(t, failed, must.Sprintf("events: %+v", ts.Events))
	return &alloc, failed
}

// gzippedTar is a tar.gz of one file of n zero bytes.
func gzippedTar(t *testing.T, name string, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	must.NoError(t, err)
	tw := tar.NewWriter(gz)
	must.NoError(t, tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(n), Typeflag: tar.TypeReg}))
	zeros := make([]byte, 1<<20)
	for left := n; left > 0; left -= len(zeros) {
		_, err := tw.Write(zeros[:min(left, len(zeros))])
		must.NoError(t, err)
	}
	must.NoError(t, tw.Close())
	must.NoError(t, gz.Close())
	return buf.Bytes()
}

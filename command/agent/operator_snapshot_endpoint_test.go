package agent

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"testing"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/nomad/snapshot"
)

// saveSnapshotHTTP saves a's state through GET /v1/operator/snapshot and
// checks the response's headers.
func saveSnapshotHTTP(t *testing.T, a *Agent, query string) response {
	t.Helper()
	resp := do(t, a, http.MethodGet, operatorSnapshotPath+query, nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprintf("save: %s", resp))
	must.Eq(t, "application/octet-stream", resp.header.Get("Content-Type"))
	must.Eq(t, strconv.Itoa(len(resp.body)), resp.header.Get("Content-Length"))
	sum := sha256.Sum256(resp.body)
	must.Eq(t, "sha-256="+base64.StdEncoding.EncodeToString(sum[:]), resp.header.Get("Digest"))
	index, err := strconv.ParseUint(resp.header.Get(httpserver.HeaderIndex), 10, 64)
	must.NoError(t, err)
	meta, err := snapshot.Verify(bytes.NewReader(resp.body))
	must.NoError(t, err)
	must.Eq(t, meta.Index, index, must.Sprint("X-Nomad-Index is the snapshot's index"))
	return resp
}

// jobList lists the IDs of the jobs a serves, sorted.
func jobList(t *testing.T, a *Agent) []string {
	t.Helper()
	var stubs []*api.JobListStub
	get(t, a, "/v1/jobs", &stubs)
	return ids(stubs, func(s *api.JobListStub) string { return s.ID })
}

func unscheduled(c *config.Config) { c.Server.NumSchedulers = new(0) }

func TestOperatorSnapshot_SaveAndRestore(t *testing.T) {
	src := testAgent(t, unscheduled)
	registerJob(t, src, batchJobJSON("first"))
	registerJob(t, src, batchJobJSON("second"))
	archive := saveSnapshotHTTP(t, src, "").body

	dst := testAgent(t, unscheduled)
	registerJob(t, dst, batchJobJSON("replaced"))
	resp := do(t, dst, http.MethodPut, operatorSnapshotPath, archive)
	must.Eq(t, http.StatusOK, resp.code, must.Sprintf("restore: %s", resp))
	index, err := strconv.ParseUint(resp.header.Get(httpserver.HeaderIndex), 10, 64)
	must.NoError(t, err)
	must.Positive(t, index)
	must.Eq(t, []string{"first", "second"}, jobList(t, dst))
}

// TestOperatorSnapshot_OfficialClient saves and restores with Nomad's own
// Go client, which checks the Digest header and sends the archive as is.
func TestOperatorSnapshot_OfficialClient(t *testing.T) {
	src := testAgent(t, unscheduled)
	registerJob(t, src, batchJobJSON("official"))
	client, err := nomadapi.NewClient(&nomadapi.Config{Address: "http://" + src.HTTPAddr()})
	must.NoError(t, err)
	body, err := client.Operator().Snapshot(nil)
	must.NoError(t, err)
	archive, err := io.ReadAll(body)
	must.NoError(t, err)
	must.NoError(t, body.Close())

	dst := testAgent(t, unscheduled)
	client, err = nomadapi.NewClient(&nomadapi.Config{Address: "http://" + dst.HTTPAddr()})
	must.NoError(t, err)
	_, err = client.Operator().SnapshotRestore(bytes.NewReader(archive), nil)
	must.NoError(t, err)
	must.Eq(t, []string{"official"}, jobList(t, dst))
}

// TestOperatorSnapshot_BadRestores holds that a body that is not a whole
// snapshot gets a 4xx with a reason and leaves the state alone.
func TestOperatorSnapshot_BadRestores(t *testing.T) {
	a := testAgent(t, unscheduled)
	registerJob(t, a, batchJobJSON("kept"))
	archive := saveSnapshotHTTP(t, a, "").body
	corrupt := bytes.Clone(archive)
	corrupt[len(corrupt)-5] ^= 0xff

	tests := []struct {
		name   string
		body   any
		code   int
		reason string
	}{
		{"no body", nil, http.StatusBadRequest, "missing request body: expected a snapshot archive"},
		{"JSON", `{"Job":{}}`, http.StatusBadRequest, "restore snapshot: read snapshot archive: not a gzip'd snapshot archive"},
		{"truncated", archive[:len(archive)/2], http.StatusBadRequest, "the archive is truncated"},
		{"corrupt", corrupt, http.StatusBadRequest, "read snapshot archive: "},
		{"wrong region", nil, http.StatusBadRequest, `unknown region "mars"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := operatorSnapshotPath
			if tc.name == "wrong region" {
				path += "?region=mars"
			}
			resp := do(t, a, http.MethodPut, path, tc.body)
			must.Eq(t, tc.code, resp.code, must.Sprint(resp))
			must.StrContains(t, resp.String(), tc.reason)
			must.Eq(t, []string{"kept"}, jobList(t, a))
		})
	}

	resp := do(t, a, http.MethodDelete, operatorSnapshotPath, nil)
	must.Eq(t, http.StatusMethodNotAllowed, resp.code)
	must.Eq(t, "GET, PUT", resp.header.Get("Allow"))
}

// TestOperatorSnapshot_RestoreLimit holds that a body over the limit is
// refused with 413, whether its length is announced or not.
func TestOperatorSnapshot_RestoreLimit(t *testing.T) {
	a := testAgent(t, unscheduled)
	archive := saveSnapshotHTTP(t, a, "").body
	limit := int64(len(archive) - 1)
	restore := func(w http.ResponseWriter, r *http.Request) (any, error) {
		return a.http.restoreSnapshot(w, r, limit)
	}
	a.http.Handle(httpserver.NewRoute("PUT /test/restore", public, restore, httpserver.BodyLimit(maxSnapshotBytes, "snapshot")))

	for _, announced := range []bool{true, false} {
		req := httptest.NewRequest(http.MethodPut, "/test/restore", io.MultiReader(bytes.NewReader(archive)))
		if announced {
			req.ContentLength = int64(len(archive))
		} else {
			req.ContentLength = -1
		}
		rec := httptest.NewRecorder()
		a.http.ServeHTTP(rec, req)
		must.Eq(t, http.StatusRequestEntityTooLarge, rec.Code, must.Sprint(rec.Body.String()))
		must.StrContains(t, rec.Body.String(), strconv.FormatInt(limit, 10))
	}
}

// TestOperatorSnapshot_RestoreLargerThanJSONCap holds that the restore
// route is not under the cap on JSON bodies: an archive larger than it is
// read to its end, where its (deliberately) wrong sum is what refuses it.
func TestOperatorSnapshot_RestoreLargerThanJSONCap(t *testing.T) {
	jsonCap := config.DefaultLimitsConfig().JobMaxSize * 2
	archive := uncompressedArchive(t, int(jsonCap)+(1<<20))
	must.Greater(t, int(jsonCap), len(archive))
	a := testAgent(t, unscheduled)
	resp := do(t, a, http.MethodPut, operatorSnapshotPath, archive)
	must.Eq(t, http.StatusBadRequest, resp.code, must.Sprint(resp))
	must.StrContains(t, resp.String(), "state.bin is corrupt: its SHA-256 is")
}

// uncompressedArchive is a snapshot archive, stored without compression,
// whose state.bin holds size zero bytes and whose SHA256SUMS gives that
// file a wrong sum.
func uncompressedArchive(t *testing.T, size int) []byte {
	t.Helper()
	metaJSON, err := json.Marshal(snapshot.Meta{Format: snapshot.FormatVersion, ID: "1-10-1", Index: 10, Term: 1, Version: 1, Size: int64(size)})
	must.NoError(t, err)
	metaSum := sha256.Sum256(metaJSON)
	sums := fmt.Sprintf("%x  meta.json\n%x  state.bin\n", metaSum, sha256.Sum256(nil))
	var buf bytes.Buffer
	gz, err := gzip.NewWriterLevel(&buf, gzip.NoCompression)
	must.NoError(t, err)
	tw := tar.NewWriter(gz)
	for _, f := range []struct {
		name string
		data []byte
	}{{"meta.json", metaJSON}, {"state.bin", make([]byte, size)}, {"SHA256SUMS", []byte(sums)}} {
		must.NoError(t, tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: f.name, Mode: 0o600, Size: int64(len(f.data))}))
		_, err := tw.Write(f.data)
		must.NoError(t, err)
	}
	must.NoError(t, tw.Close())
	must.NoError(t, gz.Close())
	return buf.Bytes()
}

// testServerPair starts two server agents with data dirs that form one
// cluster, and returns the leader and the follower once both know the
// leader and its HTTP address.
func testServerPair(t *testing.T) (leader, follower *Agent) {
	t.Helper()
	c := startServerCluster(t, 2, unscheduled)
	return c.leader(), c.followers()[0]
}

// TestOperatorSnapshot_Follower holds that a follower forwards a save that
// is not ?stale, and every restore, to the leader's HTTP API.
func TestOperatorSnapshot_Follower(t *testing.T) {
	leader, follower := testServerPair(t)
	registerJob(t, follower, batchJobJSON("saved"))
	waitForJobs(t, follower, "saved")

	archive := saveSnapshotHTTP(t, follower, "").body
	stale := saveSnapshotHTTP(t, follower, "?stale").body
	must.SliceNotEmpty(t, stale)

	registerJob(t, leader, batchJobJSON("after-save"))
	resp := do(t, follower, http.MethodPut, operatorSnapshotPath, archive)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	for _, a := range []*Agent{leader, follower} {
		waitForJobs(t, a, "saved")
	}

	// A request the follower got forwarded is not forwarded on.
	req, err := http.NewRequest(http.MethodPut, "http://"+follower.HTTPAddr()+operatorSnapshotPath, bytes.NewReader(archive))
	must.NoError(t, err)
	req.Header.Set(forwardedHeader, "1")
	httpResp, err := http.DefaultClient.Do(req)
	must.NoError(t, err)
	body, _ := io.ReadAll(httpResp.Body)
	httpResp.Body.Close()
	must.Eq(t, http.StatusServiceUnavailable, httpResp.StatusCode)
	must.StrContains(t, string(body), "this server is no longer the leader")
}

// waitForJobs waits until a's state holds exactly the jobs ids.
func waitForJobs(t *testing.T, a *Agent, ids ...string) {
	t.Helper()
	waitfor.NoError(t, fmt.Sprintf("%s to hold jobs %v", a.config.NodeName, ids), func() error {
		jobs, err := a.Server().State().Jobs(nil)
		if err != nil {
			return err
		}
		var got []string
		for _, j := range jobs {
			got = append(got, j.ID)
		}
		if !slices.Equal(got, ids) {
			return fmt.Errorf("it holds %v", got)
		}
		return nil
	})
}

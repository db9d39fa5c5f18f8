package api

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoenig/test/must"
)

const fakeSnapshot = "not really gzip, but the client does not look inside"

func sha256Digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha-256=" + base64.StdEncoding.EncodeToString(sum[:])
}

func TestOperator_Snapshot(t *testing.T) {
	c, reqs := newFakeAgent(t, reply{
		body:    fakeSnapshot,
		headers: map[string]string{"Digest": sha256Digest(fakeSnapshot), "X-Nomad-Index": "42"},
	})
	body, err := c.Operator().Snapshot(&QueryOptions{AllowStale: true})
	must.NoError(t, err)
	got, err := io.ReadAll(body)
	must.NoError(t, err)
	must.NoError(t, body.Close())
	must.Eq(t, fakeSnapshot, string(got))
	checkRequest(t, wantRequest{method: "GET", path: "/v1/operator/snapshot", query: url.Values{"stale": {"true"}}}, nextRequest(t, reqs))
}

// TestOperator_Snapshot_DigestMismatch holds that a snapshot that is not
// what the agent's Digest header says fails the read that reaches its end.
func TestOperator_Snapshot_DigestMismatch(t *testing.T) {
	c, _ := newFakeAgent(t, reply{
		body:    fakeSnapshot,
		headers: map[string]string{"Digest": sha256Digest("something else")},
	})
	body, err := c.Operator().Snapshot(nil)
	must.NoError(t, err)
	defer body.Close()
	_, err = io.ReadAll(body)
	must.True(t, errors.Is(err, ErrSnapshotDigestMismatch), must.Sprint(err))
}

func TestOperator_Snapshot_BadDigestHeader(t *testing.T) {
	for _, digest := range []string{"md5=abc", "sha-256=!!!", "sha-256=" + base64.StdEncoding.EncodeToString([]byte("short"))} {
		c, _ := newFakeAgent(t, reply{body: fakeSnapshot, headers: map[string]string{"Digest": digest}})
		_, err := c.Operator().Snapshot(nil)
		must.Error(t, err, must.Sprintf("Digest %q was accepted", digest))
		must.StrContains(t, err.Error(), "Digest header")
	}
}

func TestOperator_Snapshot_Error(t *testing.T) {
	c, _ := newFakeAgent(t, reply{status: 500, body: "No cluster leader\n"})
	_, err := c.Operator().Snapshot(nil)
	must.ErrorContains(t, err, "Unexpected response code: 500 (No cluster leader)")
}

func TestOperator_SnapshotRestore(t *testing.T) {
	c, reqs := newFakeAgent(t, reply{headers: map[string]string{"X-Nomad-Index": "77"}})
	wm, err := c.Operator().SnapshotRestore(strings.NewReader(fakeSnapshot), &WriteOptions{Region: "global"})
	must.NoError(t, err)
	must.Eq(t, 77, wm.LastIndex)
	got := nextRequest(t, reqs)
	must.Eq(t, "PUT", got.Method)
	must.Eq(t, "/v1/operator/snapshot", got.Path)
	must.Eq(t, url.Values{"region": {"global"}}, got.Query)
	must.Eq(t, "application/octet-stream", got.Header.Get("Content-Type"))
	must.Eq(t, fakeSnapshot, string(got.Body))
}

// TestOperator_SnapshotRestore_File sends a file, whose length the client
// does not know: the body goes chunked, whole.
func TestOperator_SnapshotRestore_File(t *testing.T) {
	path := filepath.Join(t.TempDir(), "backup.snap")
	must.NoError(t, os.WriteFile(path, []byte(fakeSnapshot), 0o600))
	f, err := os.Open(path)
	must.NoError(t, err)
	defer f.Close()

	c, reqs := newFakeAgent(t, reply{})
	_, err = c.Operator().SnapshotRestore(f, nil)
	must.NoError(t, err)
	must.Eq(t, fakeSnapshot, string(nextRequest(t, reqs).Body))
}

func TestOperator_SnapshotRestore_Refused(t *testing.T) {
	c, _ := newFakeAgent(t, reply{status: 400, body: "restore snapshot: read snapshot archive: the archive is truncated\n"})
	_, err := c.Operator().SnapshotRestore(strings.NewReader("x"), nil)
	must.ErrorContains(t, err, "Unexpected response code: 400 (restore snapshot: read snapshot archive: the archive is truncated)")

	_, err = c.Operator().SnapshotRestore(nil, nil)
	must.ErrorContains(t, err, "no snapshot to read")
}

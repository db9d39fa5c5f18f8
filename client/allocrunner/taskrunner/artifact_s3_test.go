package taskrunner

import (
	"bytes"
	"context"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// s3Server is an S3-compatible server (gofakes3) on 127.0.0.1 holding
// the given objects in the bucket "artifacts".
func s3Server(t *testing.T, objects map[string][]byte) *httptest.Server {
	t.Helper()
	backend := s3mem.New()
	must.NoError(t, backend.CreateBucket("artifacts"))
	for key, body := range objects {
		_, err := backend.PutObject("artifacts", key, map[string]string{}, bytes.NewReader(body), int64(len(body)), nil)
		must.NoError(t, err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	return srv
}

// An s3 source with its credentials is fetched from an S3-compatible
// endpoint, path-style, as go-getter does for hosts not of AWS; a
// source without credentials, or asking for the agent's profile, is
// refused before anything is sent; the address policy applies to the
// endpoint.
func TestFetchArtifact_S3(t *testing.T) {
	tgz := makeTar(t, true, archiveEntry{name: "bin/tool", body: "tool"})
	srv := s3Server(t, map[string][]byte{"tools/tool.tgz": tgz, "conf/app.conf": []byte("conf")})
	base := "s3::" + srv.URL + "/artifacts"
	creds := map[string]string{"aws_access_key_id": "id", "aws_access_key_secret": "secret", "region": "us-east-1"}

	t.Run("archive unpacked", func(t *testing.T) {
		td := newTaskDirEnv(t)
		must.NoError(t, fetchArtifact(context.Background(), testArtifactClients(t),
			&structs.TaskArtifact{GetterSource: base + "/tools/tool.tgz", GetterOptions: creds, RelativeDest: "local/tools"}, td.env, td.dir, nil))
		must.Eq(t, "tool", readFile(t, filepath.Join(td.dir.LocalDir, "tools", "bin", "tool")))
	})

	t.Run("credentials in the query, checksum", func(t *testing.T) {
		td := newTaskDirEnv(t)
		q := url.Values{"aws_access_key_id": {"id"}, "aws_access_key_secret": {"secret"}}
		must.NoError(t, fetchArtifact(context.Background(), testArtifactClients(t),
			&structs.TaskArtifact{GetterSource: base + "/conf/app.conf?" + q.Encode(),
				GetterOptions: map[string]string{"checksum": "sha256:" + sha256Hex([]byte("conf"))}}, td.env, td.dir, nil))
		must.Eq(t, "conf", readFile(t, filepath.Join(td.dir.LocalDir, "app.conf")))
	})

	for name, opts := range map[string]map[string]string{
		"no credentials":  nil,
		"agent's profile": {"aws_access_key_id": "id", "aws_access_key_secret": "secret", "aws_profile": "default"},
	} {
		t.Run(name, func(t *testing.T) {
			td := newTaskDirEnv(t)
			err := fetchArtifact(context.Background(), testArtifactClients(t),
				&structs.TaskArtifact{GetterSource: base + "/conf/app.conf", GetterOptions: opts}, td.env, td.dir, nil)
			must.Error(t, err)
			must.RegexMatch(t, regexp.MustCompile(`needs its credentials|aws_profile is not supported`), err.Error())
		})
	}

	t.Run("address policy", func(t *testing.T) {
		td := newTaskDirEnv(t)
		f := newArtifactFetcher(DefaultArtifactConfig())
		t.Cleanup(f.close)
		err := fetchArtifact(context.Background(), f,
			&structs.TaskArtifact{GetterSource: base + "/conf/app.conf", GetterOptions: creds}, td.env, td.dir, nil)
		must.ErrorContains(t, err, "(loopback) refused by the client's policy (the client's artifact address_denylist)")
	})
}

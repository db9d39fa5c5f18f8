package taskrunner

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/smithy-go/encoding/httpbinding"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// s3Server is an S3-compatible server (gofakes3) on 127.0.0.1 holding
// the given objects in the bucket "artifacts". It answers only requests
// signed with the secret "secret" as S3 checks a signature: the test
// fails on any other.
func s3Server(t *testing.T, objects map[string][]byte) *httptest.Server {
	t.Helper()
	backend := s3mem.New()
	must.NoError(t, backend.CreateBucket("artifacts"))
	for key, body := range objects {
		_, err := backend.PutObject("artifacts", key, map[string]string{}, bytes.NewReader(body), int64(len(body)), nil)
		must.NoError(t, err)
	}
	s3 := gofakes3.New(backend).Server()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := checkSigV4(r, "secret"); err != nil {
			t.Errorf("%s %s: %v", r.Method, r.RequestURI, err)
			http.Error(w, err.Error(), http.StatusForbidden)
			return
		}
		s3.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// checkSigV4 checks r's Signature Version 4 as S3 does: it signs the
// request again from what arrived, its path escaped by AWS's rules, and
// compares.
func checkSigV4(r *http.Request, secret string) error {
	auth := r.Header.Get("Authorization")
	cred, _, _ := strings.Cut(strings.TrimPrefix(auth, "AWS4-HMAC-SHA256 Credential="), ",")
	scope := strings.Split(cred, "/") // id/date/region/s3/aws4_request
	if len(scope) != 5 || scope[3] != "s3" {
		return fmt.Errorf("authorization %q: not SigV4 for s3", auth)
	}
	_, signed, _ := strings.Cut(auth, "SignedHeaders=")
	signed, _, _ = strings.Cut(signed, ",")
	at, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil {
		return err
	}
	req, err := http.NewRequest(r.Method, "http://"+r.Host+"/?"+r.URL.RawQuery, nil)
	if err != nil {
		return err
	}
	req.URL.Opaque = "//" + r.Host + httpbinding.EscapePath(r.URL.Path, false)
	for _, h := range strings.Split(signed, ";") {
		if h != "host" {
			req.Header.Set(h, r.Header.Get(h))
		}
	}
	creds := aws.Credentials{AccessKeyID: scope[0], SecretAccessKey: secret, SessionToken: r.Header.Get("X-Amz-Security-Token")}
	signer := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })
	if err := signer.SignHTTP(context.Background(), creds, req, r.Header.Get("X-Amz-Content-Sha256"), "s3", scope[2], at); err != nil {
		return err
	}
	if want := req.Header.Get("Authorization"); want != auth {
		return fmt.Errorf("signature mismatch:\n got %s\nwant %s", auth, want)
	}
	return nil
}

// An s3 source with its credentials is fetched from an S3-compatible
// endpoint, path-style, as go-getter does for hosts not of AWS; a
// source without credentials, or asking for the agent's profile, is
// refused before anything is sent; the address policy applies to the
// endpoint.
func TestFetchArtifact_S3(t *testing.T) {
	tgz := makeTar(t, true, archiveEntry{name: "bin/tool", body: "tool"})
	srv := s3Server(t, map[string][]byte{"tools/tool.tgz": tgz, "conf/app.conf": []byte("conf"),
		"conf/app (1)+x=y.conf": []byte("odd"), "tree/a.txt": []byte("a"), "tree/sub/b.txt": []byte("b"), "tree/": nil})
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

	t.Run("key escaped as signed", func(t *testing.T) {
		td := newTaskDirEnv(t)
		must.NoError(t, fetchArtifact(context.Background(), testArtifactClients(t),
			&structs.TaskArtifact{GetterSource: base + "/conf/app (1)+x=y.conf", GetterOptions: creds, GetterMode: structs.ArtifactModeFile,
				RelativeDest: "local/odd.conf"}, td.env, td.dir, nil))
		must.Eq(t, "odd", readFile(t, filepath.Join(td.dir.LocalDir, "odd.conf")))
	})

	// A key that is no object is a prefix: mode "any" fetches the
	// objects under it, as a tree.
	t.Run("prefix as a directory", func(t *testing.T) {
		td := newTaskDirEnv(t)
		withToken := maps.Clone(creds)
		withToken["aws_access_token"] = "session"
		must.NoError(t, fetchArtifact(context.Background(), testArtifactClients(t),
			&structs.TaskArtifact{GetterSource: base + "/tree", GetterOptions: withToken, RelativeDest: "local/tree"}, td.env, td.dir, nil))
		must.Eq(t, "a", readFile(t, filepath.Join(td.dir.LocalDir, "tree", "a.txt")))
		must.Eq(t, "b", readFile(t, filepath.Join(td.dir.LocalDir, "tree", "sub", "b.txt")))
	})

	t.Run("missing object", func(t *testing.T) {
		td := newTaskDirEnv(t)
		err := fetchArtifact(context.Background(), testArtifactClients(t),
			&structs.TaskArtifact{GetterSource: base + "/conf/nope.conf", GetterOptions: creds, GetterMode: structs.ArtifactModeFile}, td.env, td.dir, nil)
		must.ErrorContains(t, err, `s3 GET object "conf/nope.conf" in bucket "artifacts": 404 Not Found: NoSuchKey`)
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

// Sources are read as go-getter reads them, and sent where S3 answers
// them: AWS's buckets virtual-hosted at their region's endpoint (path-
// style when the name cannot be a host name), other servers path-style.
func TestParseS3Source(t *testing.T) {
	const q = "?aws_access_key_id=id&aws_access_key_secret=secret"
	cases := map[string][2]string{ // source: URL, region
		"https://s3.amazonaws.com/bucket/dir/key":            {"https://bucket.s3.us-east-1.amazonaws.com/dir/key", "us-east-1"},
		"https://bucket.s3-eu-west-1.amazonaws.com/key":      {"https://bucket.s3.eu-west-1.amazonaws.com/key", "eu-west-1"},
		"https://bucket.s3.eu-west-2.amazonaws.com/key":      {"https://bucket.s3.eu-west-2.amazonaws.com/key", "eu-west-2"},
		"https://s3.eu-west-1.amazonaws.com/my.bucket/key":   {"https://s3.eu-west-1.amazonaws.com/my.bucket/key", "eu-west-1"},
		"https://my.bucket.s3.amazonaws.com/a+b?region=ap-1": {"https://s3.ap-1.amazonaws.com/my.bucket/a%2Bb", "ap-1"},
		"https://b.s3.cn-north-1.amazonaws.com.cn/key":       {"https://b.s3.cn-north-1.amazonaws.com.cn/key", "cn-north-1"},
		"http://127.0.0.1:9000/bucket/a b/c":                 {"http://127.0.0.1:9000/bucket/a%20b/c", "us-east-1"},
		"https://minio.internal/bucket/key?region=eu-1":      {"https://minio.internal/bucket/key", "eu-1"},
	}
	for src, want := range cases {
		sep := q
		if strings.Contains(src, "?") {
			sep = "&" + q[1:]
		}
		u, err := url.Parse(src + sep)
		must.NoError(t, err)
		obj, err := parseS3Source(u)
		must.NoError(t, err, must.Sprint(src))
		must.Eq(t, want, [2]string{obj.url(obj.key, nil).String(), obj.region}, must.Sprint(src))
	}
	for _, src := range []string{"https://ec2.amazonaws.com/bucket/key", "http://127.0.0.1:9000/"} {
		u, err := url.Parse(src + q)
		must.NoError(t, err)
		_, err = parseS3Source(u)
		if err == nil {
			obj, _ := parseS3Source(u)
			t.Errorf("%s: read as %+v", src, obj)
		}
	}
}

package taskrunner

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	getter "github.com/hashicorp/go-getter/v2"
)

// s3Getter fetches an S3 object, or every object under a prefix, for
// go-getter: three calls of S3's REST API (HeadObject, GetObject,
// ListObjectsV2), signed with the AWS SDK's Signature Version 4 signer
// and sent by the client's HTTP client, through its address policy.
// go-getter's own s3 module brings the SDK's first version, whose tables
// cost every process of the binary 1.6 MB at start; the SDK's S3 client
// costs 9 MB of binary (the binary's templates keep every method of a
// type used as an interface, and the S3 client is one). The request is
// signed with the source's credentials and nothing of the agent's: no
// environment, shared profile or instance role is read. Sources are read
// as go-getter reads them: AWS's hosts path-style or virtual-hosted, any
// other host path-style (an S3-compatible server), with
// aws_access_key_id, aws_access_key_secret, aws_access_token, region and
// version in the query.
type s3Getter struct {
	client  *http.Client
	timeout time.Duration
}

// s3Object is what an s3 source names.
type s3Object struct {
	// scheme and host are the server's. On AWS, host is the domain
	// (amazonaws.com) and the server is the region's.
	scheme, host string
	onAWS        bool
	region       string
	bucket, key  string
	version      string
	creds        aws.Credentials
}

// Detect claims a source forced to s3 (s3::https://...), and a source
// without a scheme on an AWS S3 host (bucket.s3.amazonaws.com/key), which
// it reads as https.
func (g *s3Getter) Detect(req *getter.Request) (bool, error) {
	if req.Forced != "" {
		return req.Forced == "s3", nil
	}
	if u, err := url.Parse(req.Src); err == nil && u.Scheme != "" {
		return false, nil // an http(s) URL without s3:: is the http getter's
	}
	host, _, _ := strings.Cut(req.Src, "/")
	if _, _, _, ok := awsS3Host(host); !ok {
		return false, nil
	}
	req.Src = "https://" + req.Src
	return true, nil
}

// Mode is file for a key that is an object, dir for a prefix.
func (g *s3Getter) Mode(ctx context.Context, u *url.URL) (getter.Mode, error) {
	obj, err := parseS3Source(u)
	if err != nil {
		return getter.ModeInvalid, err
	}
	if obj.key == "" || strings.HasSuffix(obj.key, "/") {
		return getter.ModeDir, nil
	}
	ctx, cancel := g.withTimeout(ctx)
	defer cancel()
	resp, err := g.do(ctx, http.MethodHead, obj, obj.key, obj.versionQuery())
	var s3err *s3Error
	if errors.As(err, &s3err) && s3err.status == http.StatusNotFound {
		return getter.ModeDir, nil
	}
	if err != nil {
		return getter.ModeInvalid, err
	}
	resp.Body.Close()
	return getter.ModeFile, nil
}

// GetFile downloads the object the source names to req.Dst.
func (g *s3Getter) GetFile(ctx context.Context, req *getter.Request) error {
	obj, err := parseS3Source(req.URL())
	if err != nil {
		return err
	}
	if obj.key == "" {
		return fmt.Errorf("s3 source names bucket %q, not an object in it", obj.bucket)
	}
	ctx, cancel := g.withTimeout(ctx)
	defer cancel()
	return g.getObject(ctx, obj, obj.key, obj.versionQuery(), req.Dst)
}

// Get downloads every object under the source's key, a prefix, into the
// directory req.Dst, each at its key's path below the prefix.
func (g *s3Getter) Get(ctx context.Context, req *getter.Request) error {
	obj, err := parseS3Source(req.URL())
	if err != nil {
		return err
	}
	prefix := obj.key
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	ctx, cancel := g.withTimeout(ctx)
	defer cancel()
	if err := os.MkdirAll(req.Dst, 0o755); err != nil {
		return err
	}
	found := 0
	query := url.Values{"list-type": {"2"}, "prefix": {prefix}}
	for {
		page, err := g.list(ctx, obj, query)
		if err != nil {
			return err
		}
		for _, key := range page.Keys {
			if strings.HasSuffix(key, "/") {
				continue // a folder's placeholder
			}
			rel := filepath.FromSlash(strings.TrimPrefix(key, prefix))
			if !filepath.IsLocal(rel) {
				return fmt.Errorf("object %q: its key leads out of the prefix %q", key, prefix)
			}
			if err := g.getObject(ctx, obj, key, nil, filepath.Join(req.Dst, rel)); err != nil {
				return err
			}
			found++
		}
		if !page.IsTruncated || page.NextContinuationToken == "" {
			break
		}
		query.Set("continuation-token", page.NextContinuationToken)
	}
	if found == 0 {
		return fmt.Errorf("no object in bucket %q under %q", obj.bucket, prefix)
	}
	return nil
}

func (g *s3Getter) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if g.timeout > 0 {
		return context.WithTimeout(ctx, g.timeout)
	}
	return context.WithCancel(ctx)
}

// s3ListPage is the part of a ListObjectsV2 answer the getter reads.
type s3ListPage struct {
	Keys                  []string `xml:"Contents>Key"`
	IsTruncated           bool
	NextContinuationToken string
}

// s3MaxListPage bounds the answer of one list call: 1000 keys of at
// most 1 KiB, with their XML.
const s3MaxListPage = 8 << 20

func (g *s3Getter) list(ctx context.Context, obj *s3Object, query url.Values) (*s3ListPage, error) {
	resp, err := g.do(ctx, http.MethodGet, obj, "", query)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var page s3ListPage
	if err := xml.NewDecoder(io.LimitReader(resp.Body, s3MaxListPage)).Decode(&page); err != nil {
		return nil, fmt.Errorf("list bucket %q: %w", obj.bucket, err)
	}
	return &page, nil
}

// getObject downloads one object to dst.
func (g *s3Getter) getObject(ctx context.Context, obj *s3Object, key string, query url.Values, dst string) error {
	resp, err := g.do(ctx, http.MethodGet, obj, key, query)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, resp.Body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("object %q: %w", key, err)
	}
	return nil
}

// emptySHA256 is the hash of an empty payload, which every request the
// getter sends has.
const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// s3Signer signs as S3 wants: the path is escaped once, as sent.
var s3Signer = v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })

// do sends one signed request about key (the bucket itself when "") and
// returns the answer when it is a success, else an *s3Error.
func (g *s3Getter) do(ctx context.Context, method string, obj *s3Object, key string, query url.Values) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, obj.url(key, query).String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("X-Amz-Content-Sha256", emptySHA256)
	if err := s3Signer.SignHTTP(ctx, obj.creds, req, emptySHA256, "s3", obj.region, time.Now()); err != nil {
		return nil, fmt.Errorf("sign s3 request: %w", err)
	}
	resp, err := g.client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	defer resp.Body.Close()
	e := &s3Error{method: method, bucket: obj.bucket, key: key, status: resp.StatusCode}
	_ = xml.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(e)
	return nil, e
}

// s3Error is S3's answer to a request that failed.
type s3Error struct {
	method, bucket, key string
	status              int
	Code                string
	Message             string
}

func (e *s3Error) Error() string {
	what := fmt.Sprintf("bucket %q", e.bucket)
	if e.key != "" {
		what = fmt.Sprintf("object %q in bucket %q", e.key, e.bucket)
	}
	msg := fmt.Sprintf("s3 %s %s: %d %s", e.method, what, e.status, http.StatusText(e.status))
	if e.Code != "" {
		msg += ": " + e.Code
	}
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// url is where a request about key is sent: on AWS virtual-hosted when
// the bucket's name can be a host name, else path-style.
func (o *s3Object) url(key string, query url.Values) *url.URL {
	u := &url.URL{Scheme: o.scheme, Host: o.host, Path: "/" + o.bucket + "/" + key}
	if o.onAWS {
		u.Scheme, u.Host = "https", "s3."+o.region+"."+o.host
		if virtualHostable(o.bucket) {
			u.Host, u.Path = o.bucket+"."+u.Host, "/"+key
		}
	}
	u.RawPath = s3Escape(u.Path)
	u.RawQuery = strings.ReplaceAll(query.Encode(), "+", "%20")
	return u
}

func (o *s3Object) versionQuery() url.Values {
	if o.version == "" {
		return nil
	}
	return url.Values{"versionId": {o.version}}
}

// virtualHostable reports whether a bucket's name can lead a host name
// that AWS's certificate covers: no dots, no capitals.
func virtualHostable(bucket string) bool {
	for _, c := range bucket {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return bucket != ""
}

// s3Escape escapes a path as S3 reads it for the signature: every byte
// but the unreserved ones and the slashes.
func s3Escape(p string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-_.~/", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// parseS3Source reads an s3 source as go-getter does. On AWS's hosts the
// bucket is in the host (bucket.s3.region.amazonaws.com/key,
// bucket.s3-region.amazonaws.com/key) or the path
// (s3.amazonaws.com/bucket/key, s3-region.amazonaws.com/bucket/key); the
// region query, when given, is the one signed for. Any other host is an
// S3-compatible server addressed path-style, in region us-east-1 unless
// the query says otherwise.
func parseS3Source(u *url.URL) (*s3Object, error) {
	if err := checkS3Source(u); err != nil {
		return nil, err
	}
	q := u.Query()
	obj := &s3Object{
		scheme: u.Scheme, host: u.Host, version: q.Get("version"),
		creds: aws.Credentials{AccessKeyID: q.Get("aws_access_key_id"),
			SecretAccessKey: q.Get("aws_access_key_secret"), SessionToken: q.Get("aws_access_token")},
	}
	path := strings.TrimPrefix(u.Path, "/")
	bucket, region, domain, onAWS := awsS3Host(u.Hostname())
	switch {
	case onAWS:
		obj.onAWS, obj.host = true, domain
	case strings.HasSuffix(u.Hostname(), ".amazonaws.com") || strings.HasSuffix(u.Hostname(), ".amazonaws.com.cn"):
		return nil, fmt.Errorf("s3 source %s: %s is not an S3 host of AWS's", u.Redacted(), u.Hostname())
	default:
		region = "us-east-1"
	}
	if bucket == "" {
		bucket, path, _ = strings.Cut(path, "/")
	}
	if bucket == "" {
		return nil, fmt.Errorf("s3 source %s names no bucket", u.Redacted())
	}
	obj.bucket, obj.key = bucket, path
	obj.region = q.Get("region")
	if obj.region == "" {
		obj.region = region
	}
	return obj, nil
}

// awsS3Host reads an AWS S3 host name: the bucket it names, if virtual-
// hosted, its region (us-east-1 where it names none) and AWS's domain
// it is in. ok is false for a host not AWS's S3.
func awsS3Host(host string) (bucket, region, domain string, ok bool) {
	var name string
	for _, domain = range []string{"amazonaws.com", "amazonaws.com.cn"} {
		if name, ok = strings.CutSuffix(host, "."+domain); ok {
			break
		}
	}
	if !ok {
		return "", "", "", false
	}
	labels := strings.Split(name, ".")
	// The service label, s3 or s3-region, is the last that looks like
	// one: a bucket's name may hold dots and "s3-" too.
	i := len(labels) - 1
	for i >= 0 && labels[i] != "s3" && !strings.HasPrefix(labels[i], "s3-") {
		i--
	}
	if i < 0 {
		return "", "", "", false
	}
	region = "us-east-1"
	if r, dashed := strings.CutPrefix(labels[i], "s3-"); dashed && r != "external-1" {
		region = r
	}
	for _, l := range labels[i+1:] {
		if l != "dualstack" {
			region = l
		}
	}
	return strings.Join(labels[:i], "."), region, domain, true
}

// checkS3Source refuses an s3 source without its own credentials, or
// asking for a profile of the agent's: the client never lends a job its
// own AWS credentials.
func checkS3Source(u *url.URL) error {
	q := u.Query()
	if q.Get("aws_profile") != "" {
		return errors.New("aws_profile is not supported: it would read the client's own AWS credentials")
	}
	if q.Get("aws_access_key_id") == "" || q.Get("aws_access_key_secret") == "" {
		return errors.New("an s3 source needs its credentials, aws_access_key_id and aws_access_key_secret: the client does not lend a job its own")
	}
	return nil
}

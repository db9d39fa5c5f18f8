package taskrunner

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"sync"

	getter "github.com/hashicorp/go-getter"

	"github.com/drover-io/drover/internal/netguard"
)

// artifactFetcher holds what one task's artifacts are fetched with: the
// client's artifact configuration and the HTTP clients bound to its
// address policy, kept across the task's artifacts for their connections.
// go-getter drives each fetch (source detection, forced getters, subdirs,
// checksums, modes, archives); the getters and decompressors it is given
// are Drover's choice, so that every connection goes through the policy
// and every archive is unpacked within the limits.
type artifactFetcher struct {
	config             *ArtifactConfig
	verified, insecure *http.Client

	proxyOnce sync.Once
	proxy     *netguard.Proxy
	proxyErr  error
}

func newArtifactFetcher(config *ArtifactConfig) *artifactFetcher {
	if config == nil {
		config = DefaultArtifactConfig()
	}
	p := config.addresses()
	limit := config.HTTPMaxSize
	return &artifactFetcher{
		config: config,
		verified: &http.Client{Transport: &maxBodyTransport{
			inner: p.Transport(nil, http.ProxyFromEnvironment), max: limit}},
		insecure: &http.Client{Transport: &maxBodyTransport{
			inner: p.Transport(&tls.Config{InsecureSkipVerify: true}, http.ProxyFromEnvironment), max: limit}},
	}
}

// close closes the connections kept for the next artifact, once there is
// none, and stops the git proxy if one was started.
func (f *artifactFetcher) close() {
	f.verified.CloseIdleConnections()
	f.insecure.CloseIdleConnections()
	if f.proxy != nil {
		_ = f.proxy.Close()
	}
}

// gitProxy is the guard proxy git's HTTP connections go through, started
// on first use.
func (f *artifactFetcher) gitProxy() (*netguard.Proxy, error) {
	f.proxyOnce.Do(func() {
		f.proxy, f.proxyErr = f.config.addresses().StartProxy()
	})
	return f.proxy, f.proxyErr
}

// getters are the getters one artifact may use, keyed as go-getter's
// Getters map is. The hg, file and gcs getters are left out: a job must
// not read the client's own files nor borrow its Google credentials. X-Terraform-Get redirects, which would let
// a server pick another getter, and ~/.netrc, the agent's credentials,
// are off.
func (f *artifactFetcher) getters(insecure bool, headers http.Header) map[string]getter.Getter {
	client := f.verified
	if insecure {
		client = f.insecure
	}
	httpGetter := &getter.HttpGetter{
		Client:                client,
		Header:                headers,
		ReadTimeout:           f.config.HTTPReadTimeout,
		DoNotCheckHeadFirst:   true,
		XTerraformGetDisabled: true,
	}
	p := f.config.addresses()
	return map[string]getter.Getter{
		"http":  httpGetter,
		"https": httpGetter,
		"git":   &gitGetter{fetcher: f, timeout: f.config.GitTimeout, env: f.config.SetEnvironmentVariables},
		"s3":    &checkedGetter{Getter: &getter.S3Getter{Timeout: f.config.S3Timeout}, policy: p, check: checkS3Source},
	}
}

// artifactDetectors turn a source without a scheme into a URL, as
// go-getter's defaults do, less the file detector (a local path), the
// bitbucket one (which asks bitbucket's API, outside the policy) and the
// gcs one (see structs' errGCS).
var artifactDetectors = []getter.Detector{
	new(getter.GitHubDetector),
	new(getter.GitLabDetector),
	new(getter.GitDetector),
	new(getter.S3Detector),
}

// maxBodyTransport fails the read of a response body past max bytes
// (the client's http_max_size): go-getter's own limit cuts the file
// short without an error.
type maxBodyTransport struct {
	inner http.RoundTripper
	max   int64
}

func (t *maxBodyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.inner.RoundTrip(req)
	if err != nil || t.max <= 0 {
		return resp, err
	}
	if resp.ContentLength > t.max {
		resp.Body.Close()
		return nil, fmt.Errorf("%w: %s is %s, more than %s (the client's artifact http_max_size)",
			ErrArtifactTooLarge, req.URL.Redacted(), byteCount(resp.ContentLength), byteCount(t.max))
	}
	resp.Body = &maxBody{ReadCloser: resp.Body, left: t.max, max: t.max}
	return resp, nil
}

func (t *maxBodyTransport) CloseIdleConnections() {
	if c, ok := t.inner.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// ErrArtifactTooLarge is wrapped by the error of a download stopped at
// the client's http_max_size.
var ErrArtifactTooLarge = errors.New("artifact exceeds the client's artifact limits")

type maxBody struct {
	io.ReadCloser
	left, max int64
}

func (b *maxBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		var one [1]byte
		if n, err := b.ReadCloser.Read(one[:]); n == 0 {
			return 0, err
		}
		return 0, fmt.Errorf("%w: the download is more than %s (the client's artifact http_max_size)", ErrArtifactTooLarge, byteCount(b.max))
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// checkedGetter is a go-getter getter whose connections the client's
// dialer does not make (the AWS SDK brings its own): the
// addresses its host resolves to are checked against the policy before
// it runs. A name that resolves differently a moment later escapes the
// check; the docs say so.
type checkedGetter struct {
	getter.Getter
	policy *netguard.Policy
	// check, when set, vets the source before anything else.
	check func(*url.URL) error
	ctx   context.Context
}

func (g *checkedGetter) SetClient(c *getter.Client) {
	g.ctx = c.Ctx
	g.Getter.SetClient(c)
}

func (g *checkedGetter) vet(u *url.URL) error {
	if g.check != nil {
		if err := g.check(u); err != nil {
			return err
		}
	}
	ctx := g.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	return checkHost(ctx, g.policy, u.Hostname(), defaultPort(u.Scheme, u.Port()))
}

func (g *checkedGetter) Get(dst string, u *url.URL) error {
	if err := g.vet(u); err != nil {
		return err
	}
	return g.Getter.Get(dst, u)
}

func (g *checkedGetter) GetFile(dst string, u *url.URL) error {
	if err := g.vet(u); err != nil {
		return err
	}
	return g.Getter.GetFile(dst, u)
}

func (g *checkedGetter) ClientMode(u *url.URL) (getter.ClientMode, error) {
	if err := g.vet(u); err != nil {
		return getter.ClientModeInvalid, err
	}
	return g.Getter.ClientMode(u)
}

// checkS3Source refuses an s3 source without its own credentials: the
// S3 getter would otherwise use the agent's (its environment, profile or
// instance role).
func checkS3Source(u *url.URL) error {
	q := u.Query()
	if q.Get("aws_profile") != "" {
		return errors.New("aws_profile is not supported: it would read the client's own AWS credentials")
	}
	if q.Get("aws_access_key_id") == "" || q.Get("aws_access_key_secret") == "" {
		return errors.New("an s3 source needs aws_access_key_id and aws_access_key_secret: the client does not lend a job its own credentials")
	}
	return nil
}

// checkHost checks every address host resolves to, at port, against p.
func checkHost(ctx context.Context, p *netguard.Policy, host string, port uint16) error {
	if ip, err := netip.ParseAddr(host); err == nil {
		return refusal(p.Check(netip.AddrPortFrom(ip, port)))
	}
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return fmt.Errorf("resolve %s: %w", host, err)
	}
	for _, ip := range ips {
		if err := p.Check(netip.AddrPortFrom(ip.Unmap(), port)); err != nil {
			return refusal(err)
		}
	}
	return nil
}

// refusal names the setting behind a refusal by the address policy.
func refusal(err error) error {
	if refused := (*netguard.RefusedError)(nil); errors.As(err, &refused) {
		return fmt.Errorf("%w (the client's artifact address_denylist)", refused)
	}
	return err
}

// defaultPort is the port a URL of scheme connects to.
func defaultPort(scheme, port string) uint16 {
	if n, err := strconv.ParseUint(port, 10, 16); err == nil {
		return uint16(n)
	}
	switch scheme {
	case "http":
		return 80
	case "ssh":
		return 22
	case "git":
		return 9418
	}
	return 443
}

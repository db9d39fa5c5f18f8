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
	"strconv"
	"sync"

	getter "github.com/hashicorp/go-getter/v2"

	"github.com/drover-io/drover/internal/netguard"
)

// artifactFetcher holds what one task's artifacts are fetched with: the
// client's artifact configuration and the HTTP clients bound to its
// address policy, kept across the task's artifacts for their connections:
// verified and insecure for http(s) sources, s3 for the S3 client, which
// http_max_size does not bound (it is Nomad's limit for http only).
// go-getter drives each fetch (source detection, forced getters, subdirs,
// checksums, modes, archives); the getters and decompressors it is given
// are Drover's choice, so that every connection goes through the policy
// and every archive is unpacked within the limits.
type artifactFetcher struct {
	config                 *ArtifactConfig
	verified, insecure, s3 *http.Client

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
		s3: &http.Client{Transport: p.Transport(nil, http.ProxyFromEnvironment)},
	}
}

// close closes the connections kept for the next artifact, once there is
// none, and stops the git proxy if one was started.
func (f *artifactFetcher) close() {
	f.verified.CloseIdleConnections()
	f.insecure.CloseIdleConnections()
	f.s3.CloseIdleConnections()
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

// getters are the getters one artifact may use, in the order go-getter
// asks each whether a source is its own. Only these three: go-getter's
// file, hg and smb getters would read the client's own files or mounts,
// and its gcs and s3 modules the client's own cloud credentials.
// X-Terraform-Get redirects, which would let a server pick another
// getter, and ~/.netrc, the agent's credentials, are off.
func (f *artifactFetcher) getters(insecure bool, headers http.Header) []getter.Getter {
	client := f.verified
	if insecure {
		client = f.insecure
	}
	return []getter.Getter{
		&gitGetter{fetcher: f, timeout: f.config.GitTimeout, env: f.config.SetEnvironmentVariables},
		&s3Getter{client: f.s3, timeout: f.config.S3Timeout},
		&getter.HttpGetter{
			Client:                client,
			Header:                headers,
			ReadTimeout:           f.config.HTTPReadTimeout,
			DoNotCheckHeadFirst:   true,
			XTerraformGetDisabled: true,
		},
	}
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

package servicecheck

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
)

// HTTPProbe passes on a 2xx answer to its request, warns on 429 (too many
// requests, as Consul takes it) and fails otherwise. Redirects are not
// followed: the answer is the service's own.
type HTTPProbe struct {
	URL    string
	Method string
	Header map[string][]string
	Body   string
	// TLSSkipVerify and TLSServerName shape an https check's handshake.
	TLSSkipVerify bool
	TLSServerName string
	// Control refuses addresses the client's policy refuses; nil for
	// none.
	Control DialControl
}

// Probe implements Prober. Each probe has a client of its own: a check
// keeps no connection open between probes, so that a task sees each as
// a new client would be seen.
func (p HTTPProbe) Probe(ctx context.Context) Result {
	method := p.Method
	if method == "" {
		method = http.MethodGet
	}
	var body io.Reader
	if p.Body != "" {
		body = strings.NewReader(p.Body)
	}
	req, err := http.NewRequestWithContext(ctx, method, p.URL, body)
	if err != nil {
		return Result{Health: Critical, Output: cut(fmt.Sprintf("nomad: http: %v", err))}
	}
	for name, values := range p.Header {
		for _, v := range values {
			req.Header.Add(name, v)
		}
	}
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", "Drover-Health-Check")
	}
	if host := req.Header.Get("Host"); host != "" {
		req.Host = host
	}
	dialer := &net.Dialer{Control: p.Control}
	transport := &http.Transport{
		Proxy:             nil,
		DialContext:       dialer.DialContext,
		DisableKeepAlives: true,
		TLSClientConfig:   &tls.Config{InsecureSkipVerify: p.TLSSkipVerify, ServerName: p.TLSServerName}, //nolint:gosec // the job asks for it
	}
	defer transport.CloseIdleConnections()
	client := &http.Client{
		Transport:     transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := client.Do(req)
	if err != nil {
		return Result{Health: Critical, Output: cut(fmt.Sprintf("nomad: http: %v", err))}
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxOutput))
	out := Result{StatusCode: resp.StatusCode, Output: string(data)}
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		out.Health = Passing
	case resp.StatusCode == http.StatusTooManyRequests:
		out.Health = Warning
	default:
		out.Health = Critical
	}
	if out.Output == "" {
		out.Output = fmt.Sprintf("nomad: http %s", resp.Status)
	}
	return out
}

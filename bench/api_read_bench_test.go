package bench

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/drover-io/drover/command/agent"
	agentconfig "github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/internal/tlsutil"
	"github.com/drover-io/drover/internal/tlsutil/tlstest"
)

// The read benchmark's workload: GET /v1/jobs with this many jobs stored,
// from this many concurrent callers, each way measured in rounds of this
// length that take turns, so that a machine busy with something else
// weighs on every way alike.
const (
	readBenchJobs    = 20
	readBenchWorkers = 8
	readBenchRounds  = 5
	readBenchRound   = time.Second
	readBenchPath    = "/v1/jobs"
)

// readWay is one way of reaching the HTTP API whose cost the read
// benchmark measures: plain HTTP, HTTPS with and without client
// certificates, ACL tokens checked. A new way is one more entry in
// readWays: its agent configuration, and what each request carries.
type readWay struct {
	name string
	// configure changes the agent's configuration; pki holds the TLS
	// files a way may use.
	configure func(cfg *agentconfig.Config, pki *benchPKI)
	// client is the HTTP client of the callers.
	client func(pki *benchPKI) *http.Client
	// prepare, when set, adds what the way needs to each request.
	prepare func(*http.Request)
	// acl, when set, turns ACLs on: the jobs are registered with the
	// bootstrap token, and the callers send the token acl returns (the
	// management token, or a client token made with it).
	acl func(b *testing.B, tg *readTarget, management string) string
}

// Ways of calling with ACLs on.
var (
	// aclManagement sends the bootstrap token: resolved, no policy to
	// check.
	aclManagement = func(_ *testing.B, _ *readTarget, management string) string { return management }
	// aclClient sends a client token whose policy reads the default
	// namespace: resolved, its compiled policy checked, the list filtered.
	aclClient = func(b *testing.B, tg *readTarget, management string) string {
		return tg.clientToken(b, management, `namespace "default" { policy = "read" }`)
	}
)

var readWays = []readWay{
	{
		name:      "http",
		configure: func(*agentconfig.Config, *benchPKI) {},
		client:    func(*benchPKI) *http.Client { return keepAliveClient(nil) },
	},
	{
		name:      "https",
		configure: func(cfg *agentconfig.Config, pki *benchPKI) { pki.httpsOn(cfg) },
		client:    func(pki *benchPKI) *http.Client { return keepAliveClient(pki.cliTLS()) },
	},
	{
		name:      "https_client_cert",
		configure: func(cfg *agentconfig.Config, pki *benchPKI) { pki.httpsOn(cfg); cfg.TLS.VerifyHTTPSClient = true },
		client:    func(pki *benchPKI) *http.Client { return keepAliveClient(pki.cliTLS()) },
	},
	{
		name:      "http_acl_management",
		configure: func(*agentconfig.Config, *benchPKI) {},
		client:    func(*benchPKI) *http.Client { return keepAliveClient(nil) },
		acl:       aclManagement,
	},
	{
		name:      "http_acl_client",
		configure: func(*agentconfig.Config, *benchPKI) {},
		client:    func(*benchPKI) *http.Client { return keepAliveClient(nil) },
		acl:       aclClient,
	},
	{
		// Everything on: HTTPS with client certificates, and ACLs.
		name:      "https_client_cert_acl_client",
		configure: func(cfg *agentconfig.Config, pki *benchPKI) { pki.httpsOn(cfg); cfg.TLS.VerifyHTTPSClient = true },
		client:    func(pki *benchPKI) *http.Client { return keepAliveClient(pki.cliTLS()) },
		acl:       aclClient,
	},
	{
		// Every request on a new connection: what a TLS handshake costs.
		name:      "https_new_connection",
		configure: func(cfg *agentconfig.Config, pki *benchPKI) { pki.httpsOn(cfg); cfg.TLS.VerifyHTTPSClient = true },
		client: func(pki *benchPKI) *http.Client {
			t := keepAliveClient(pki.cliTLS()).Transport.(*http.Transport)
			t.DisableKeepAlives = true
			return &http.Client{Transport: t, Timeout: 30 * time.Second}
		},
	},
}

// BenchmarkHTTPAPI_ReadOverTLS reports requests per second of GET
// /v1/jobs answered by a dev-mode server, for each way in readWays (TLS
// and ACLs, off and on), side by side in one run.
func BenchmarkHTTPAPI_ReadOverTLS(b *testing.B) {
	for range b.N {
		pki := newBenchPKI(b)
		targets := make([]*readTarget, len(readWays))
		for i, way := range readWays {
			targets[i] = startReadTarget(b, way, pki)
		}
		for range readBenchRounds {
			for _, tg := range targets {
				tg.round(b)
			}
		}
		var line []string
		for _, tg := range targets {
			rps := float64(tg.requests) / tg.elapsed.Seconds()
			b.ReportMetric(rps, tg.way.name+"_req/s")
			line = append(line, fmt.Sprintf("%s %.0f req/s", tg.way.name, rps))
		}
		b.Logf("GET %s (%d jobs), %d callers, %d rounds of %s each: %s",
			readBenchPath, readBenchJobs, readBenchWorkers, readBenchRounds, readBenchRound, strings.Join(line, "; "))
	}
}

// readTarget is an agent configured one way, and the tally of its rounds.
type readTarget struct {
	way    readWay
	url    string
	client *http.Client
	// token is the ACL secret the requests send, "" without ACLs.
	token    string
	requests int64
	elapsed  time.Duration
}

func startReadTarget(b *testing.B, way readWay, pki *benchPKI) *readTarget {
	b.Helper()
	cfg := agentconfig.DevConfig()
	cfg.Ports = agentconfig.Ports{HTTP: 0, RPC: 0}
	cfg.NodeName = "bench-" + way.name
	cfg.Client.Enabled = false
	way.configure(cfg, pki)
	cfg.ACL.Enabled = way.acl != nil
	a, err := agent.NewAgent(cfg, hclog.New(&hclog.LoggerOptions{Name: "bench", Level: hclog.Error}))
	if err != nil {
		b.Fatalf("%s: start agent: %v", way.name, err)
	}
	b.Cleanup(func() { _ = a.Shutdown() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := a.Server().WaitForLeader(ctx); err != nil {
		b.Fatal(err)
	}
	scheme := "http"
	if cfg.TLS.HTTP {
		scheme = "https"
	}
	tg := &readTarget{way: way, url: scheme + "://" + a.HTTPAddr(), client: way.client(pki)}
	b.Cleanup(tg.client.CloseIdleConnections)
	var management string
	if way.acl != nil {
		management = tg.bootstrap(b)
		tg.token = management
	}
	for i := range readBenchJobs {
		body := fmt.Sprintf(`{"Job":{"ID":"read-%d","Name":"read-%d","Type":"batch","Datacenters":["dc1"],`+
			`"TaskGroups":[{"Name":"g","Count":1,"Tasks":[{"Name":"t","Driver":"raw_exec","Config":{"command":"/bin/true"}}]}]}}`, i, i)
		if err := tg.do(http.MethodPut, "/v1/jobs", body); err != nil {
			b.Fatalf("%s: register job: %v", way.name, err)
		}
	}
	if way.acl != nil {
		tg.token = way.acl(b, tg, management)
	}
	return tg
}

// bootstrap bootstraps the target's ACL system and returns the management
// secret.
func (tg *readTarget) bootstrap(b *testing.B) string {
	b.Helper()
	var token struct{ SecretID string }
	if err := tg.decode(http.MethodPut, "/v1/acl/bootstrap", "", &token); err != nil {
		b.Fatalf("%s: bootstrap: %v", tg.way.name, err)
	}
	return token.SecretID
}

// clientToken writes a policy of rules and returns the secret of a client
// token that holds it, as the management token makes them.
func (tg *readTarget) clientToken(b *testing.B, management, rules string) string {
	b.Helper()
	tg.token = management
	policy, _ := json.Marshal(map[string]string{"Name": "bench", "Rules": rules})
	if err := tg.do(http.MethodPut, "/v1/acl/policy/bench", string(policy)); err != nil {
		b.Fatalf("%s: write policy: %v", tg.way.name, err)
	}
	var token struct{ SecretID string }
	if err := tg.decode(http.MethodPut, "/v1/acl/token", `{"Name":"bench","Type":"client","Policies":["bench"]}`, &token); err != nil {
		b.Fatalf("%s: create token: %v", tg.way.name, err)
	}
	return token.SecretID
}

// round runs the callers for one round and adds what they did.
func (tg *readTarget) round(b *testing.B) {
	var done atomic.Int64
	var failed atomic.Value
	stop := time.Now().Add(readBenchRound)
	start := time.Now()
	var wg sync.WaitGroup
	for range readBenchWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				if err := tg.do(http.MethodGet, readBenchPath, ""); err != nil {
					failed.Store(err)
					return
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	if err, ok := failed.Load().(error); ok {
		b.Fatalf("%s: %v", tg.way.name, err)
	}
	tg.requests += done.Load()
	tg.elapsed += time.Since(start)
}

// do sends one request and reads the whole answer, which must be 200.
func (tg *readTarget) do(method, path, body string) error {
	return tg.decode(method, path, body, nil)
}

// decode is do that decodes the JSON answer into out, unless out is nil.
func (tg *readTarget) decode(method, path, body string, out any) error {
	req, err := http.NewRequest(method, tg.url+path, strings.NewReader(body))
	if err != nil {
		return err
	}
	if tg.way.prepare != nil {
		tg.way.prepare(req)
	}
	if tg.token != "" {
		req.Header.Set("X-Nomad-Token", tg.token)
	}
	resp, err := tg.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, data)
	}
	if out != nil {
		return json.Unmarshal(data, out)
	}
	return nil
}

// keepAliveClient is an HTTP client that keeps a connection per caller.
func keepAliveClient(cfg *tls.Config) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = readBenchWorkers
	t.TLSClientConfig = cfg
	return &http.Client{Transport: t, Timeout: 30 * time.Second}
}

// benchPKI is a CA with a server and a CLI certificate.
type benchPKI struct {
	server tlsutil.Files
	cli    *tlsutil.Material
}

func newBenchPKI(b *testing.B) *benchPKI {
	ca := tlstest.NewCA(b)
	return &benchPKI{
		server: ca.Files(b, "server", tlsutil.RoleServer, "global"),
		cli:    tlstest.Material(b, ca.Files(b, "cli", tlsutil.RoleCLI, "global")),
	}
}

// httpsOn serves the agent's API over HTTPS.
func (p *benchPKI) httpsOn(cfg *agentconfig.Config) {
	cfg.TLS = agentconfig.TLSConfig{HTTP: true, CAFile: p.server.CAFile, CertFile: p.server.CertFile, KeyFile: p.server.KeyFile}
}

// cliTLS trusts the CA and presents the CLI certificate.
func (p *benchPKI) cliTLS() *tls.Config {
	return &tls.Config{RootCAs: p.cli.CAs, Certificates: []tls.Certificate{p.cli.Cert}, MinVersion: tls.VersionTLS12}
}

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/internal/waitfor"
)

// promServer is a Prometheus server (Debian's prometheus) a test runs,
// scraping agents every second.
type promServer struct {
	t    *testing.T
	addr string
}

// promConfig scrapes the agents at targets every second. honor_labels
// keeps the series' own job label, which Prometheus would otherwise
// rename exported_job under its scrape job's.
const promConfig = `global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: drover
    honor_labels: true
    metrics_path: /v1/metrics
    params:
      format: [prometheus]
    static_configs:
      - targets: [%s]
`

// startPrometheus starts Prometheus on a free loopback port, scraping the
// HTTP addresses targets ("127.0.0.1:4646"), and stops it when the test
// ends. Prometheus is required: scripts/install-deps.sh installs it.
func startPrometheus(t *testing.T, targets ...string) *promServer {
	t.Helper()
	skipShort(t)
	bin, err := exec.LookPath("prometheus")
	must.NoError(t, err, must.Sprint("Prometheus is required: run scripts/install-deps.sh (as root, it installs Debian's prometheus)"))
	dir := t.TempDir()
	quoted := make([]string, len(targets))
	for i, target := range targets {
		quoted[i] = strconv.Quote(target)
	}
	config := writeFile(t, dir, "prometheus.yml", fmt.Sprintf(promConfig, strings.Join(quoted, ", ")))
	addr := fmt.Sprintf("127.0.0.1:%d", freeLoopbackPort(t, "127.0.0.1"))
	logFile, err := os.Create(filepath.Join(dir, "prometheus.log"))
	must.NoError(t, err)
	cmd := exec.Command(bin,
		"--config.file="+config,
		"--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr,
		"--log.level=warn",
	)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	must.NoError(t, cmd.Start())
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		_ = logFile.Close()
		if t.Failed() {
			if log, err := os.ReadFile(logFile.Name()); err == nil {
				t.Logf("prometheus log:\n%s", log)
			}
		}
	})
	p := &promServer{t: t, addr: addr}
	waitfor.NoError(t, "Prometheus ready", func() error {
		select {
		case <-exited:
			t.Fatalf("prometheus exited before it was ready; see its log")
		default:
		}
		resp, err := http.Get("http://" + addr + "/-/ready")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%w: /-/ready answers %s", errNotYet, resp.Status)
		}
		return nil
	}, wait.Timeout(readyTimeout), wait.Gap(100*time.Millisecond))
	// Ready is not scraping: Prometheus hands new targets to its scrapers
	// some seconds after it starts. Wait until it has scraped each.
	waitfor.NoError(t, "Prometheus scraping every target", func() error {
		up, err := p.query(`up{job="drover"} == 1`)
		if err != nil {
			return err
		}
		if len(up) != len(targets) {
			return fmt.Errorf("%w: %d of %d targets up", errNotYet, len(up), len(targets))
		}
		return nil
	}, wait.Timeout(readyTimeout), wait.Gap(100*time.Millisecond))
	return p
}

// promSample is one series of an instant query's answer.
type promSample struct {
	labels map[string]string
	value  float64
}

// get calls the HTTP API at path with params and decodes its data.
func (p *promServer) get(path string, params url.Values, data any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+p.addr+path+"?"+params.Encode(), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var body struct {
		Status string
		Error  string
		Data   json.RawMessage
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	if body.Status != "success" {
		return fmt.Errorf("GET %s %v: %s: %s", path, params, resp.Status, body.Error)
	}
	return json.Unmarshal(body.Data, data)
}

// query evaluates expr now, through /api/v1/query; it must be an instant
// vector.
func (p *promServer) query(expr string) ([]promSample, error) {
	var data struct {
		ResultType string
		Result     []struct {
			Metric map[string]string
			Value  [2]any
		}
	}
	if err := p.get("/api/v1/query", url.Values{"query": {expr}}, &data); err != nil {
		return nil, err
	}
	if data.ResultType != "vector" {
		return nil, fmt.Errorf("query %q: a %s, not a vector", expr, data.ResultType)
	}
	out := make([]promSample, 0, len(data.Result))
	for _, r := range data.Result {
		s, _ := r.Value[1].(string)
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("query %q: value %v: %w", expr, r.Value[1], err)
		}
		out = append(out, promSample{labels: r.Metric, value: v})
	}
	return out, nil
}

// labelValues lists the values of label over the series match selects,
// through /api/v1/label/:name/values, as Grafana's label_values does.
func (p *promServer) labelValues(label, match string) ([]string, error) {
	var values []string
	err := p.get("/api/v1/label/"+url.PathEscape(label)+"/values", url.Values{"match[]": {match}}, &values)
	return values, err
}

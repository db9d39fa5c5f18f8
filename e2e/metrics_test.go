package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

// The max_run_duration series, as /v1/metrics names them (JSON) and as
// Prometheus does.
const (
	jsonConfigured = "nomad.client.allocs.max_run_duration.configured_seconds"
	jsonRemaining  = "nomad.client.allocs.max_run_duration.remaining_seconds"
	jsonExceeded   = "nomad.client.allocs.max_run_duration.exceeded"
	promConfigured = "nomad_client_allocs_max_run_duration_configured_seconds"
	promRemaining  = "nomad_client_allocs_max_run_duration_remaining_seconds"
	promExceeded   = "nomad_client_allocs_max_run_duration_exceeded"
)

// series is one metric series: its name, labels and value.
type series struct {
	name   string
	labels map[string]string
	value  float64
}

// scrape is what one read of the metrics showed: the series of interest,
// from JSON or Prometheus.
type scrape []series

// find returns the series named name whose alloc_id label is allocID.
func (s scrape) find(name, allocID string) (series, bool) {
	for _, m := range s {
		if m.name == name && m.labels["alloc_id"] == allocID {
			return m, true
		}
	}
	return series{}, false
}

// count is how many series named name there are for allocID.
func (s scrape) count(name, allocID string) int {
	n := 0
	for _, m := range s {
		if m.name == name && m.labels["alloc_id"] == allocID {
			n++
		}
	}
	return n
}

// scrapeJSON reads GET /v1/metrics: the in-memory sink's last complete
// interval.
func (a *testAgent) scrapeJSON() (scrape, error) {
	summary, _, err := a.api.Operator().MetricsSummary(nil)
	if err != nil {
		return nil, err
	}
	var out scrape
	for _, g := range summary.Gauges {
		out = append(out, series{name: g.Name, labels: g.DisplayLabels, value: float64(g.Value)})
	}
	for _, c := range summary.Counters {
		out = append(out, series{name: c.Name, labels: c.DisplayLabels, value: c.Sum})
	}
	return out, nil
}

// scrapePrometheus reads GET /v1/metrics?format=prometheus.
func (a *testAgent) scrapePrometheus() (scrape, error) {
	body, err := a.api.Operator().Metrics(&api.QueryOptions{Params: map[string]string{"format": "prometheus"}})
	if err != nil {
		return nil, err
	}
	return parsePrometheus(body)
}

// parsePrometheus reads the series of Prometheus' text format, skipping
// comments. It handles what the agent writes: label values without
// escaped quotes.
func parsePrometheus(body []byte) (scrape, error) {
	var out scrape
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m := series{labels: map[string]string{}}
		rest := line
		if i := strings.IndexByte(line, '{'); i >= 0 {
			end := strings.LastIndexByte(line, '}')
			if end < i {
				return nil, fmt.Errorf("series %q: unbalanced braces", line)
			}
			m.name = line[:i]
			for _, pair := range splitLabels(line[i+1 : end]) {
				k, v, ok := strings.Cut(pair, "=")
				if !ok {
					return nil, fmt.Errorf("series %q: label %q", line, pair)
				}
				m.labels[k] = strings.Trim(v, `"`)
			}
			rest = strings.TrimSpace(line[end+1:])
		} else {
			m.name, rest, _ = strings.Cut(line, " ")
		}
		value, _, _ := strings.Cut(strings.TrimSpace(rest), " ") // a timestamp may follow
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return nil, fmt.Errorf("series %q: value: %w", line, err)
		}
		m.value = v
		out = append(out, m)
	}
	return out, sc.Err()
}

// splitLabels splits `a="x",b="y,z"` at the commas between pairs.
func splitLabels(s string) []string {
	var out []string
	inQuote := false
	start := 0
	for i, r := range s {
		switch {
		case r == '"':
			inQuote = !inQuote
		case r == ',' && !inQuote:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

func TestParsePrometheus(t *testing.T) {
	got, err := parsePrometheus([]byte(`# HELP x x
# TYPE x gauge
x{a="1",b="p,q"} 2.5
y 3 1700000000000
`))
	must.NoError(t, err)
	must.Eq(t, 2, len(got))
	must.Eq(t, "x", got[0].name)
	must.Eq(t, map[string]string{"a": "1", "b": "p,q"}, got[0].labels)
	must.Eq(t, 2.5, got[0].value)
	must.Eq(t, "y", got[1].name)
	must.Eq(t, 3.0, got[1].value)
}

// wantLabels are the labels every max_run_duration series carries.
func wantLabels(alloc *api.Allocation, node *api.Node) map[string]string {
	return map[string]string{
		"alloc_id":   alloc.ID,
		"job":        alloc.JobID,
		"namespace":  alloc.Namespace,
		"task_group": alloc.TaskGroup,
		"node_id":    node.ID,
		"datacenter": node.Datacenter,
		"node_class": node.NodeClass,
		"node_pool":  node.NodePool,
	}
}

// counterLabels are the labels of the node's max_run_duration counter for
// alloc's group: the gauges' but alloc_id.
func counterLabels(alloc *api.Allocation, node *api.Node) map[string]string {
	labels := wantLabels(alloc, node)
	delete(labels, "alloc_id")
	return labels
}

// findLabels returns the series named name with exactly the labels want.
func (s scrape) findLabels(name string, want map[string]string) (series, bool) {
	for _, m := range s {
		if m.name == name && maps.Equal(m.labels, want) {
			return m, true
		}
	}
	return series{}, false
}

// mustHaveLabels checks that m carries the labels want, and no others.
func mustHaveLabels(t *testing.T, m series, want map[string]string) {
	t.Helper()
	must.Eq(t, want, maps.Clone(m.labels), must.Sprintf("labels of %s", m.name))
}

// TestMaxRun_Metrics runs two allocations of one group on the one node of
// a dev agent and reads the max_run_duration series over HTTP, as JSON
// and as Prometheus text: both gauges, with every label, one series per
// allocation, while they run; the time left going down between two
// scrapes; the node's exceeded counter for the group, at 0 before the
// expiry and at 2 after it, without alloc_id; the gauges gone once the
// allocations ended.
func TestMaxRun_Metrics(t *testing.T) {
	t.Parallel()
	const budget = 8 * time.Second
	a := startDevAgent(t)
	a.runJob(`job "metrics" {
  type = "batch"
  group "g" {
    count            = 2
    max_run_duration = "8s"
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/sleep" args = ["1000"] }
      resources {
        cpu    = 50
        memory = 32
      }
    }
  }
}`)
	allocs := a.waitAllocs("metrics", 2, "running", 30*time.Second, clientStatus(api.AllocClientStatusRunning))
	must.Eq(t, allocs[0].NodeID, allocs[1].NodeID, must.Sprint("both allocations must run on the one node"))
	node, _, err := a.api.Nodes().Info(allocs[0].NodeID, nil)
	must.NoError(t, err)

	// While they run: both gauges for each allocation, in both formats.
	var first map[string]scrape
	a.waitFor("both gauges of both allocations in JSON and Prometheus", 10*time.Second, func() error {
		var err error
		first, err = a.scrapeGauges(allocs, true)
		return err
	})
	for format, s := range first {
		for _, alloc := range allocs {
			for i, name := range gaugeNames(format) {
				must.Eq(t, 1, s.count(name, alloc.ID), must.Sprintf("%s: series of %s for %s", format, name, alloc.ID))
				m, _ := s.find(name, alloc.ID)
				mustHaveLabels(t, m, wantLabels(alloc, node))
				if i == 0 { // configured_seconds
					must.Eq(t, budget.Seconds(), m.value, must.Sprintf("%s: %s", format, name))
				} else {
					must.True(t, m.value > 0 && m.value <= budget.Seconds(), must.Sprintf("%s: %s = %v", format, name, m.value))
				}
			}
		}
	}

	// The time left goes down: the gauges are refreshed every collection
	// interval (1 s).
	a.waitFor("the time left of both allocations to go down in JSON and Prometheus", 10*time.Second, func() error {
		for format, read := range map[string]func() (scrape, error){"json": a.scrapeJSON, "prometheus": a.scrapePrometheus} {
			second, err := read()
			if err != nil {
				return err
			}
			remaining := gaugeNames(format)[1]
			for _, alloc := range allocs {
				before, _ := first[format].find(remaining, alloc.ID)
				after, ok := second.find(remaining, alloc.ID)
				if !ok {
					t.Fatalf("%s: %s for %s gone while it runs", format, remaining, alloc.ID)
				}
				if after.value >= before.value {
					return fmt.Errorf("%w: %s: %s for %s is %v, was %v", errNotYet, format, remaining, alloc.ID, after.value, before.value)
				}
			}
		}
		return nil
	})

	// Before the expiry the group's counter is there, at 0, so that
	// increase() sees its first count; in JSON, in each interval.
	group := counterLabels(allocs[0], node)
	a.waitFor("the group's exceeded counter at 0 before the expiry", 10*time.Second, func() error {
		for format, read := range map[string]func() (scrape, error){"json": a.scrapeJSON, "prometheus": a.scrapePrometheus} {
			s, err := read()
			if err != nil {
				return err
			}
			name := map[string]string{"json": jsonExceeded, "prometheus": promExceeded}[format]
			m, ok := s.findLabels(name, group)
			if !ok {
				return fmt.Errorf("%w: %s has no %s for the group", errNotYet, format, name)
			}
			must.Eq(t, 0.0, m.value, must.Sprintf("%s: %s before the expiry", format, name))
		}
		return nil
	})
	if time.Now().After(unixTime(allocs[0].MaxRunDeadline)) {
		t.Fatal("the deadline passed before the counter was read at 0")
	}

	// At expiry: the node's counter for the group counts both, with no
	// alloc_id; no series per allocation.
	a.waitFor("both allocations to end and the counter to count both", budget+30*time.Second, func() error {
		for _, alloc := range allocs {
			got, _, err := a.api.Allocations().Info(alloc.ID, nil)
			if err != nil {
				return err
			}
			if terminal(got) != nil {
				return fmt.Errorf("%w: alloc %s is %s", errNotYet, alloc.ID, got.ClientStatus)
			}
			mustEndByDeadline(t, got)
		}
		prom, err := a.scrapePrometheus()
		if err != nil {
			return err
		}
		if m, _ := prom.findLabels(promExceeded, group); m.value != 2 {
			return fmt.Errorf("%w: %s = %v", errNotYet, promExceeded, m.value)
		}
		for _, alloc := range allocs {
			must.Eq(t, 0, prom.count(promExceeded, alloc.ID), must.Sprint("no counter series per allocation"))
		}
		return nil
	})

	// After they ended the gauges go: the Prometheus sink drops a gauge
	// not set for three collection intervals (at least 3 s), the JSON
	// shows only the last complete interval.
	a.waitFor("the gauges to go", 20*time.Second, func() error {
		_, err := a.scrapeGauges(allocs, false)
		return err
	})
}

// scrapeGauges scrapes both formats and checks that every gauge of every
// allocation is there (present) or that none is. It returns the scrapes
// by format.
func (a *testAgent) scrapeGauges(allocs []*api.Allocation, present bool) (map[string]scrape, error) {
	out := map[string]scrape{}
	for format, read := range map[string]func() (scrape, error){"json": a.scrapeJSON, "prometheus": a.scrapePrometheus} {
		s, err := read()
		if err != nil {
			return nil, err
		}
		for _, alloc := range allocs {
			for _, name := range gaugeNames(format) {
				if _, ok := s.find(name, alloc.ID); ok != present {
					if present {
						return nil, fmt.Errorf("%w: %s has no %s for %s", errNotYet, format, name, alloc.ID)
					}
					return nil, fmt.Errorf("%w: %s still has %s for %s", errNotYet, format, name, alloc.ID)
				}
			}
		}
		out[format] = s
	}
	return out, nil
}

// gaugeNames are the gauges' names in a format: configured, remaining.
func gaugeNames(format string) []string {
	if format == "json" {
		return []string{jsonConfigured, jsonRemaining}
	}
	return []string{promConfigured, promRemaining}
}

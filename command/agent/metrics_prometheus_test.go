package agent

import (
	"math"
	"strings"
	"testing"
	"time"

	metrics "github.com/hashicorp/go-metrics"
	"github.com/shoenig/test/must"
)

// fakeClock is a settable clock for the sink's expiry.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func newTestPromSink() (*promSink, *fakeClock) {
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	s := newPromSink(3 * time.Second)
	s.now = clock.now
	return s, clock
}

func render(t *testing.T, s *promSink) string {
	t.Helper()
	var b strings.Builder
	n, err := s.WriteTo(&b)
	must.NoError(t, err)
	must.Eq(t, int64(b.Len()), n)
	return b.String()
}

func TestPromSink_Render(t *testing.T) {
	s, _ := newTestPromSink()
	labels := []metrics.Label{
		{Name: "alloc_id", Value: "a1"},
		{Name: "task_group", Value: `we"ird\name`},
	}
	s.SetGaugeWithLabels([]string{"nomad", "client", "allocs", "max_run_duration", "remaining_seconds"}, 7.5, labels)
	s.IncrCounterWithLabels([]string{"nomad", "client", "allocs", "max_run_duration", "exceeded"}, 1, labels)
	s.IncrCounterWithLabels([]string{"nomad", "client", "allocs", "max_run_duration", "exceeded"}, 1, labels)
	s.AddSample([]string{"nomad", "http", "GET_v1_jobs"}, 2)
	s.AddSample([]string{"nomad", "http", "GET_v1_jobs"}, 4)
	s.SetGauge([]string{"nomad", "host-1.example", "runtime", "num_goroutines"}, 12)

	want := `# HELP nomad_client_allocs_max_run_duration_remaining_seconds nomad_client_allocs_max_run_duration_remaining_seconds
# TYPE nomad_client_allocs_max_run_duration_remaining_seconds gauge
nomad_client_allocs_max_run_duration_remaining_seconds{alloc_id="a1",task_group="we\"ird\\name"} 7.5
# HELP nomad_host_1_example_runtime_num_goroutines nomad_host_1_example_runtime_num_goroutines
# TYPE nomad_host_1_example_runtime_num_goroutines gauge
nomad_host_1_example_runtime_num_goroutines 12
# HELP nomad_client_allocs_max_run_duration_exceeded nomad_client_allocs_max_run_duration_exceeded
# TYPE nomad_client_allocs_max_run_duration_exceeded counter
nomad_client_allocs_max_run_duration_exceeded{alloc_id="a1",task_group="we\"ird\\name"} 2
# HELP nomad_http_GET_v1_jobs nomad_http_GET_v1_jobs
# TYPE nomad_http_GET_v1_jobs summary
nomad_http_GET_v1_jobs_sum 6
nomad_http_GET_v1_jobs_count 2
`
	must.Eq(t, want, render(t, s))
}

func TestPromSink_SeriesPerLabelSet(t *testing.T) {
	s, _ := newTestPromSink()
	key := []string{"nomad", "client", "allocs", "max_run_duration", "configured_seconds"}
	s.SetGaugeWithLabels(key, 10, []metrics.Label{{Name: "alloc_id", Value: "a"}})
	s.SetGaugeWithLabels(key, 20, []metrics.Label{{Name: "alloc_id", Value: "b"}})
	s.SetGaugeWithLabels(key, 30, []metrics.Label{{Name: "alloc_id", Value: "a"}})

	out := render(t, s)
	must.StrContains(t, out, `nomad_client_allocs_max_run_duration_configured_seconds{alloc_id="a"} 30`)
	must.StrContains(t, out, `nomad_client_allocs_max_run_duration_configured_seconds{alloc_id="b"} 20`)
	must.Eq(t, 1, strings.Count(out, "# TYPE"))
}

func TestPromSink_GaugesExpire(t *testing.T) {
	s, clock := newTestPromSink()
	s.SetGauge([]string{"nomad", "old"}, 1)
	clock.t = clock.t.Add(2 * time.Second)
	s.SetGauge([]string{"nomad", "fresh"}, 2)
	s.IncrCounter([]string{"nomad", "count"}, 1)
	clock.t = clock.t.Add(2 * time.Second)

	out := render(t, s)
	must.StrNotContains(t, out, "nomad_old")
	must.StrContains(t, out, "nomad_fresh 2")
	must.StrContains(t, out, "nomad_count 1")

	clock.t = clock.t.Add(defaultSeriesTTL)
	out = render(t, s)
	must.StrNotContains(t, out, "nomad_count")
}

func TestPromSink_NameClashAcrossTypes(t *testing.T) {
	s, _ := newTestPromSink()
	s.SetGauge([]string{"nomad", "x"}, 1)
	s.IncrCounter([]string{"nomad", "x"}, 5)
	out := render(t, s)
	must.Eq(t, 1, strings.Count(out, "# TYPE nomad_x "))
	must.StrNotContains(t, out, "nomad_x 5")
}

func TestPromNames(t *testing.T) {
	cases := map[string]string{
		"nomad_client_allocs": "nomad_client_allocs",
		"nomad.http.GET":      "nomad_http_GET",
		"a-b c/d":             "a_b_c_d",
		"9lives":              "_lives",
		"ns:metric":           "ns:metric",
		"":                    "_",
	}
	for in, want := range cases {
		must.Eq(t, want, promName(in))
	}
	must.Eq(t, "ns_label", promLabelName("ns:label"))
}

func TestFormatPromValue(t *testing.T) {
	must.Eq(t, "1.5", formatPromValue(1.5))
	must.Eq(t, "1e+08", formatPromValue(1e8))
	must.Eq(t, "NaN", formatPromValue(math.NaN()))
	must.Eq(t, "+Inf", formatPromValue(math.Inf(1)))
	must.Eq(t, "-Inf", formatPromValue(math.Inf(-1)))
}

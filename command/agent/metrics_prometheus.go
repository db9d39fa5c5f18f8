package agent

import (
	"bufio"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	metrics "github.com/hashicorp/go-metrics"
)

// promSink is a go-metrics sink that keeps what Prometheus scrapes: the last
// value of each gauge, the running total of each counter and the running
// count and sum of each sample, and renders them in the Prometheus text
// exposition format. Names are the go-metrics keys (service prefix first)
// with every character Prometheus does not allow turned into "_", as Nomad's
// Prometheus output has them: nomad.client.allocs.running becomes
// nomad_client_allocs_running. Counters keep their plain names (no _total),
// as Nomad's do.
//
// Gauges that were not set within gaugeTTL are dropped; counters and
// samples that did not change within seriesTTL are dropped too, so that
// per-allocation series do not pile up forever.
type promSink struct {
	gaugeTTL  time.Duration
	seriesTTL time.Duration
	now       func() time.Time

	mu       sync.Mutex
	gauges   map[string]*promSeries
	counters map[string]*promSeries
	samples  map[string]*promSeries
}

// promSeries is one labelled time series.
type promSeries struct {
	name    string
	labels  []metrics.Label
	value   float64 // gauge value or counter total
	count   uint64  // samples only
	sum     float64 // samples only
	updated time.Time
}

const defaultSeriesTTL = 10 * time.Minute

func newPromSink(gaugeTTL time.Duration) *promSink {
	return &promSink{
		gaugeTTL:  gaugeTTL,
		seriesTTL: defaultSeriesTTL,
		now:       time.Now,
		gauges:    map[string]*promSeries{},
		counters:  map[string]*promSeries{},
		samples:   map[string]*promSeries{},
	}
}

var (
	_ metrics.MetricSink               = (*promSink)(nil)
	_ metrics.PrecisionGaugeMetricSink = (*promSink)(nil)
)

func (s *promSink) SetGauge(key []string, val float32) { s.SetGaugeWithLabels(key, val, nil) }

func (s *promSink) SetGaugeWithLabels(key []string, val float32, labels []metrics.Label) {
	s.SetPrecisionGaugeWithLabels(key, float64(val), labels)
}

func (s *promSink) SetPrecisionGauge(key []string, val float64) {
	s.SetPrecisionGaugeWithLabels(key, val, nil)
}

func (s *promSink) SetPrecisionGaugeWithLabels(key []string, val float64, labels []metrics.Label) {
	s.mu.Lock()
	defer s.mu.Unlock()
	series := s.series(s.gauges, key, labels)
	series.value = val
}

// EmitKey is a one-off key/value pair, which Prometheus has no type for.
func (s *promSink) EmitKey(key []string, val float32) {}

func (s *promSink) IncrCounter(key []string, val float32) { s.IncrCounterWithLabels(key, val, nil) }

func (s *promSink) IncrCounterWithLabels(key []string, val float32, labels []metrics.Label) {
	s.mu.Lock()
	defer s.mu.Unlock()
	series := s.series(s.counters, key, labels)
	series.value += float64(val)
}

func (s *promSink) AddSample(key []string, val float32) { s.AddSampleWithLabels(key, val, nil) }

func (s *promSink) AddSampleWithLabels(key []string, val float32, labels []metrics.Label) {
	s.mu.Lock()
	defer s.mu.Unlock()
	series := s.series(s.samples, key, labels)
	series.count++
	series.sum += float64(val)
}

// series returns the series for key and labels in m, creating it, and marks
// it updated. The caller holds s.mu.
func (s *promSink) series(m map[string]*promSeries, key []string, labels []metrics.Label) *promSeries {
	name := promName(strings.Join(key, "_"))
	id := seriesID(name, labels)
	series := m[id]
	if series == nil {
		series = &promSeries{name: name, labels: slices.Clone(labels)}
		m[id] = series
	}
	series.updated = s.now()
	return series
}

// seriesID identifies a series by its name and label pairs, in order.
func seriesID(name string, labels []metrics.Label) string {
	var b strings.Builder
	b.WriteString(name)
	for _, l := range labels {
		b.WriteByte(0)
		b.WriteString(l.Name)
		b.WriteByte(0)
		b.WriteString(l.Value)
	}
	return b.String()
}

// WriteTo renders every live series in the text exposition format, metric
// names in sorted order so that the output is stable.
func (s *promSink) WriteTo(w io.Writer) (int64, error) {
	s.mu.Lock()
	now := s.now()
	gauges := liveSeries(s.gauges, now, s.gaugeTTL)
	counters := liveSeries(s.counters, now, s.seriesTTL)
	samples := liveSeries(s.samples, now, s.seriesTTL)
	s.mu.Unlock()

	cw := &countingWriter{w: bufio.NewWriter(w)}
	written := map[string]bool{}
	writeFamilies(cw, "gauge", gauges, written, func(bw io.Writer, ps *promSeries) {
		writeSample(bw, ps.name, ps.labels, ps.value)
	})
	writeFamilies(cw, "counter", counters, written, func(bw io.Writer, ps *promSeries) {
		writeSample(bw, ps.name, ps.labels, ps.value)
	})
	writeFamilies(cw, "summary", samples, written, func(bw io.Writer, ps *promSeries) {
		writeSample(bw, ps.name+"_sum", ps.labels, ps.sum)
		writeSample(bw, ps.name+"_count", ps.labels, float64(ps.count))
	})
	if err := cw.w.(*bufio.Writer).Flush(); err != nil {
		return cw.n, err
	}
	return cw.n, cw.err
}

// liveSeries drops the series of m older than ttl and returns copies of the
// rest, so that rendering needs no lock. The caller holds the sink's lock.
func liveSeries(m map[string]*promSeries, now time.Time, ttl time.Duration) []promSeries {
	out := make([]promSeries, 0, len(m))
	for id, ps := range m {
		if now.Sub(ps.updated) > ttl {
			delete(m, id)
			continue
		}
		out = append(out, *ps)
	}
	slices.SortFunc(out, func(a, b promSeries) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		return strings.Compare(seriesID(a.name, a.labels), seriesID(b.name, b.labels))
	})
	return out
}

// writeFamilies writes one "# TYPE" line per metric name followed by its
// series. A name already written under another type is skipped: Prometheus
// rejects a name with two types.
func writeFamilies(w io.Writer, typ string, series []promSeries, written map[string]bool, write func(io.Writer, *promSeries)) {
	current := ""
	for i := range series {
		ps := &series[i]
		if ps.name != current {
			current = ps.name
			if written[current] {
				continue
			}
			written[current] = true
			io.WriteString(w, "# HELP "+current+" "+current+"\n")
			io.WriteString(w, "# TYPE "+current+" "+typ+"\n")
		} else if !written[current] {
			continue
		}
		write(w, ps)
	}
}

func writeSample(w io.Writer, name string, labels []metrics.Label, value float64) {
	var b strings.Builder
	b.WriteString(name)
	if len(labels) > 0 {
		b.WriteByte('{')
		for i, l := range labels {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(promLabelName(l.Name))
			b.WriteString(`="`)
			b.WriteString(escapeLabelValue(l.Value))
			b.WriteByte('"')
		}
		b.WriteByte('}')
	}
	b.WriteByte(' ')
	b.WriteString(formatPromValue(value))
	b.WriteByte('\n')
	io.WriteString(w, b.String())
}

// promName turns a metric key into a valid Prometheus metric name: letters,
// digits, "_" and ":", not starting with a digit.
func promName(s string) string {
	return sanitizePromName(s, true)
}

// promLabelName is promName for label names, which may not contain ":".
func promLabelName(s string) string {
	return sanitizePromName(s, false)
}

func sanitizePromName(s string, allowColon bool) string {
	if s == "" {
		return "_"
	}
	var b strings.Builder
	for i, r := range s {
		ok := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') ||
			(i > 0 && r >= '0' && r <= '9') || (allowColon && r == ':')
		if ok {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

var labelValueEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

func escapeLabelValue(s string) string { return labelValueEscaper.Replace(s) }

func formatPromValue(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// countingWriter counts bytes and keeps the first error, so that rendering
// code can write without checking each call.
type countingWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}

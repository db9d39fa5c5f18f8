package agent

import (
	"bytes"
	"fmt"
	"net/http"

	"github.com/drover-io/drover/command/agent/httpserver"
)

// prometheusContentType is the text exposition format's content type.
const prometheusContentType = "text/plain; version=0.0.4; charset=utf-8"

// metricsHandler serves GET /v1/metrics: the in-memory sink's latest
// finished interval as JSON, or with ?format=prometheus every live series in
// Prometheus' text format.
func (s *HTTPServer) metricsHandler(w http.ResponseWriter, r *http.Request) (any, error) {
	if err := s.setLatestMeta(w); err != nil {
		return nil, err
	}
	switch format := r.URL.Query().Get("format"); format {
	case "", "json":
		return s.agent.metrics.inmem.DisplayMetrics(w, r)
	case "prometheus":
		return nil, s.writePrometheus(w)
	default:
		return nil, httpserver.BadRequest("unknown metrics format %q: use json or prometheus", format)
	}
}

func (s *HTTPServer) writePrometheus(w http.ResponseWriter) error {
	prom := s.agent.metrics.prom
	if prom == nil {
		return httpserver.BadRequest("Prometheus metrics are not enabled: set prometheus_metrics = true in the agent's telemetry block")
	}
	var buf bytes.Buffer
	if _, err := prom.WriteTo(&buf); err != nil {
		return fmt.Errorf("render Prometheus metrics: %w", err)
	}
	w.Header().Set("Content-Type", prometheusContentType)
	w.Header().Set("Content-Length", fmt.Sprint(buf.Len()))
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(buf.Bytes())
	if err != nil {
		s.logger.Debug("write metrics response", "error", err)
	}
	return nil
}

package agent

import (
	"sync"
	"time"

	metrics "github.com/hashicorp/go-metrics"

	"github.com/drover-io/drover/command/agent/config"
)

// agentMetrics is one agent's telemetry: the in-memory sink behind
// GET /v1/metrics and, when prometheus_metrics is set, the Prometheus sink
// behind ?format=prometheus. Both are registered as go-metrics' global sink,
// which every package writes to.
//
// Tests run several agents in one process, so the agent reads only from its
// own sinks and never through the global, which belongs to the agent that
// started last.
type agentMetrics struct {
	inmem   *metrics.InmemSink
	prom    *promSink // nil unless Prometheus metrics are enabled
	metrics *metrics.Metrics

	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}
}

// startMetrics builds the sinks, installs them as go-metrics' global and
// starts emitting Go runtime metrics every collection interval until stop.
func startMetrics(cfg config.TelemetryConfig) (*agentMetrics, error) {
	am := &agentMetrics{
		inmem: metrics.NewInmemSink(cfg.InMemoryCollectionInterval(), cfg.InMemoryRetention),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	sinks := metrics.FanoutSink{am.inmem}
	if cfg.PrometheusMetrics {
		am.prom = newPromSink(gaugeTTL(cfg.CollectionInterval))
		sinks = append(sinks, am.prom)
	}

	mc := metrics.DefaultConfig(cfg.ServicePrefix)
	mc.EnableHostname = !cfg.DisableHostname
	// go-metrics' own runtime collector cannot be stopped; the agent runs
	// its own loop instead, which ends with the agent.
	mc.EnableRuntimeMetrics = false
	mc.ProfileInterval = cfg.CollectionInterval
	m, err := metrics.NewGlobal(mc, sinks)
	if err != nil {
		return nil, err
	}
	am.metrics = m
	go am.emitRuntimeStats(cfg.CollectionInterval)
	return am, nil
}

// gaugeTTL is how long a gauge stays in the Prometheus output after it was
// last set. Gauges are refreshed every collection interval; one that has
// not been set for three intervals belongs to something that is gone (a
// stopped allocation), and its series is dropped.
func gaugeTTL(collectionInterval time.Duration) time.Duration {
	return max(3*collectionInterval, 3*time.Second)
}

// emitRuntimeStats emits the Go runtime's figures at once, so that a scrape
// right after the agent starts finds them, then every interval.
func (am *agentMetrics) emitRuntimeStats(interval time.Duration) {
	defer close(am.done)
	am.metrics.EmitRuntimeStats()
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-am.stop:
			return
		case <-ticker.C:
			am.metrics.EmitRuntimeStats()
		}
	}
}

// shutdown stops the runtime loop and, if this agent's sinks are still the
// global ones, detaches them so that later writes go nowhere.
func (am *agentMetrics) shutdown() {
	am.stopOnce.Do(func() {
		close(am.stop)
		<-am.done
		if metrics.Default() == am.metrics {
			metrics.Shutdown()
		}
	})
}

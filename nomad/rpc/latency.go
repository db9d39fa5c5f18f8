package rpc

import (
	"slices"
	"sync"
	"time"
)

// LatencySamples keeps the latest durations of an operation, for reading
// quantiles in process (benchmarks, tests); the metrics sinks get every
// sample too.
type LatencySamples struct {
	mu sync.Mutex
	// samples grows up to latencyWindow, then is a ring whose oldest
	// sample is at next: a server that applies few plans keeps few.
	samples []time.Duration
	next    int
}

// latencyWindow is how many samples are kept.
const latencyWindow = 1 << 16

func (l *LatencySamples) Record(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.samples) < latencyWindow {
		l.samples = append(l.samples, d)
		return
	}
	l.samples[l.next] = d
	l.next = (l.next + 1) % latencyWindow
}

// snapshot returns the kept samples, sorted.
func (l *LatencySamples) snapshot() []time.Duration {
	l.mu.Lock()
	out := slices.Clone(l.samples)
	l.mu.Unlock()
	slices.Sort(out)
	return out
}

// LatencyStats summarises kept samples.
type LatencyStats struct {
	Count         int
	P50, P99, Max time.Duration
}

func (l *LatencySamples) Stats() LatencyStats {
	sorted := l.snapshot()
	if len(sorted) == 0 {
		return LatencyStats{}
	}
	q := func(p float64) time.Duration {
		i := int(p*float64(len(sorted)) + 0.5)
		return sorted[min(max(i-1, 0), len(sorted)-1)]
	}
	return LatencyStats{Count: len(sorted), P50: q(0.50), P99: q(0.99), Max: sorted[len(sorted)-1]}
}

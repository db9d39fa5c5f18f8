package docker

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/drover-io/drover/drivers"
)

var _ drivers.StatsReporter = (*Driver)(nil)

// TaskStats reads the container's CPU and memory from the engine (its
// cgroup), one sample without waiting for a second one.
func (d *Driver) TaskStats(ctx context.Context, taskID string) (*drivers.TaskUsage, error) {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return nil, err
	}
	if t.currentPhase() != phaseRunning || t.hasExited() {
		return nil, fmt.Errorf("stats of task %q: task is not running", taskID)
	}
	res, err := d.client.ContainerStats(ctx, t.containerID(), client.ContainerStatsOptions{})
	if err != nil {
		return nil, fmt.Errorf("stats of task %q: %w", taskID, err)
	}
	defer res.Body.Close()
	var s container.StatsResponse
	if err := json.NewDecoder(res.Body).Decode(&s); err != nil {
		return nil, fmt.Errorf("stats of task %q: decode: %w", taskID, err)
	}
	return usageFromStats(&s), nil
}

// usageFromStats reads the engine's figures, under the names of cgroup v1
// ("rss", "cache", "swap") or v2 ("anon", "file").
func usageFromStats(s *container.StatsResponse) *drivers.TaskUsage {
	m, c := s.MemoryStats, s.CPUStats
	u := &drivers.TaskUsage{
		Timestamp:        s.Read,
		MemoryUsage:      m.Usage,
		MemoryMaxUsage:   m.MaxUsage,
		MemoryRSS:        firstStat(m.Stats, "rss", "anon"),
		MemoryCache:      firstStat(m.Stats, "cache", "file"),
		MemorySwap:       m.Stats["swap"],
		CPUUser:          time.Duration(c.CPUUsage.UsageInUsermode),
		CPUSystem:        time.Duration(c.CPUUsage.UsageInKernelmode),
		ThrottledPeriods: c.ThrottlingData.ThrottledPeriods,
		ThrottledTime:    time.Duration(c.ThrottlingData.ThrottledTime),
	}
	if u.Timestamp.IsZero() {
		u.Timestamp = time.Now()
	}
	return u
}

func firstStat(stats map[string]uint64, names ...string) uint64 {
	for _, n := range names {
		if v, ok := stats[n]; ok {
			return v
		}
	}
	return 0
}

package client

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers"
)

// TestDriverUsage reports a driver's measure of a task as the stats
// endpoint does for processes: CPU averaged over the task's life.
func TestDriverUsage(t *testing.T) {
	started := time.Unix(1700000000, 0)
	u := &drivers.TaskUsage{
		Timestamp: started.Add(10 * time.Second),
		MemoryRSS: 30 << 20, MemoryCache: 2 << 20, MemorySwap: 0, MemoryUsage: 33 << 20, MemoryMaxUsage: 40 << 20,
		CPUUser: 4 * time.Second, CPUSystem: time.Second,
		ThrottledPeriods: 3, ThrottledTime: 5 * time.Millisecond,
	}
	r := driverUsage(u, started, 2000)
	must.Eq(t, &MemoryStats{RSS: 30 << 20, Cache: 2 << 20, Usage: 33 << 20, MaxUsage: 40 << 20, Measured: measuredDriverMemory}, r.MemoryStats)
	must.Eq(t, 40.0, r.CpuStats.UserMode)
	must.Eq(t, 10.0, r.CpuStats.SystemMode)
	must.Eq(t, 50.0, r.CpuStats.Percent)
	must.Eq(t, 1000.0, r.CpuStats.TotalTicks)
	must.Eq(t, uint64(3), r.CpuStats.ThrottledPeriods)
	must.Eq(t, uint64(5*time.Millisecond), r.CpuStats.ThrottledTime)

	sum := emptyUsage()
	addUsage(sum, r)
	addUsage(sum, r)
	must.Eq(t, uint64(60<<20), sum.MemoryStats.RSS)
	must.Eq(t, uint64(4<<20), sum.MemoryStats.Cache)
	must.Eq(t, measuredDriverMemory, sum.MemoryStats.Measured)
}

package rawexec

import (
	"context"
	"time"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/drivers/exec/isolate"
)

var _ drivers.StatsReporter = (*Driver)(nil)

// TaskStats reads what the task uses from its cgroup, which holds every
// process it forked, also those that left its process group. A task
// without one (its supervisor could not make it, or the machine's cgroups
// do not account for CPU) is an error: the client then reads the task's
// processes instead.
func (d *Driver) TaskStats(_ context.Context, taskID string) (*drivers.TaskUsage, error) {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return nil, err
	}
	u, err := isolate.ReadCgroupUsage(isolate.CgroupName(t.cfg.ID))
	if err != nil {
		return nil, err
	}
	return &drivers.TaskUsage{
		Timestamp:        time.Now(),
		MemoryRSS:        u.MemoryRSS,
		MemoryCache:      u.MemoryCache,
		MemorySwap:       u.Swap,
		MemoryUsage:      u.MemoryUsage,
		MemoryMaxUsage:   u.MemoryMaxUsage,
		CPUUser:          u.CPUUser,
		CPUSystem:        u.CPUSystem,
		ThrottledPeriods: u.ThrottledPeriods,
		ThrottledTime:    u.ThrottledTime,
	}, nil
}

package allocrunner

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/client/state"
	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/drivers/mock"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

// envHeapProfile, when it names a file, has BenchmarkAllocRunner_Memory
// write the heap profile there while its allocations run.
const envHeapProfile = "DROVER_ALLOC_HEAP_PROFILE"

// BenchmarkAllocRunner_Memory runs allocations of one job, a mock task
// each, as the client does (a bolt state DB, one driver), and reports the
// heap each running allocation keeps: what the client agent's memory grows
// by per allocation, less the RPC that brought it. Goroutine stacks are
// outside the heap and reported apart.
func BenchmarkAllocRunner_Memory(b *testing.B) {
	const allocs = 1000
	db, err := state.OpenBoltStateDB(hclog.NewNullLogger(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	catalog, root := drivers.NewCatalog(mock.New(nil)), b.TempDir()
	// The agent's logger, at its default level: a null logger would make
	// the runners' named loggers free, which the agent's are not.
	logger := hclog.New(&hclog.LoggerOptions{Name: "agent", Level: hclog.Info, Output: io.Discard}).Named("client")
	job := &structs.Job{
		ID: "mem", Name: "mem", Namespace: "default", Type: structs.JobTypeBatch,
		TaskGroups: []*structs.TaskGroup{{Name: "g", Count: allocs, Tasks: []*structs.Task{mockTask("t", map[string]any{"run_for": "1h"})}}},
	}
	if os.Getenv(envHeapProfile) != "" {
		defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
		runtime.MemProfileRate = 4096
	}
	for range b.N {
		runners := make([]*AllocRunner, allocs)
		goroutines, before := runtime.NumGoroutine(), heapAfterGC()
		for i := range runners {
			alloc := &structs.Allocation{
				ID: structs.GenerateUUID(), Namespace: "default", Name: fmt.Sprintf("mem.g[%d]", i),
				JobID: job.ID, Job: job, TaskGroup: "g",
				DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusPending,
				CreateTime: time.Now().UnixNano(),
			}
			ar, err := NewAllocRunner(&Config{
				Alloc: alloc, Logger: logger, AllocDirRoot: root, StateDB: db, Drivers: catalog,
				StateUpdater: discardUpdates{}, Node: &structs.Node{ID: "node-1", Datacenter: "dc1"},
			})
			if err != nil {
				b.Fatal(err)
			}
			runners[i] = ar
			go ar.Run()
		}
		waitRunning(b, runners, goroutines)
		after := heapAfterGC()
		if path := os.Getenv(envHeapProfile); path != "" {
			writeHeapProfile(b, path)
		}
		b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/allocs, "heap_B/alloc")
		b.ReportMetric(float64(int64(after.StackInuse)-int64(before.StackInuse))/allocs, "stack_B/alloc")
		for _, ar := range runners {
			ar.Destroy()
		}
	}
}

// discardUpdates is a state handler that drops the updates, as the
// client's batcher does once it has sent them.
type discardUpdates struct{}

func (discardUpdates) AllocStateUpdated(*structs.Allocation) {}

func heapAfterGC() runtime.MemStats {
	// Twice: the first collection's finalizers free more.
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms
}

// waitRunning waits until every runner's allocation runs and nothing but
// the two goroutines of each is left (the start's, the notifier's end).
func waitRunning(b *testing.B, runners []*AllocRunner, goroutinesBefore int) {
	waitfor.True(b, "every allocation running", func() bool {
		for _, ar := range runners {
			if ar.Alloc().ClientStatus != structs.AllocClientStatusRunning {
				return false
			}
		}
		return true
	}, wait.Timeout(2*time.Minute))
	waitfor.True(b, "two goroutines per allocation", func() bool {
		return runtime.NumGoroutine()-goroutinesBefore <= 2*len(runners)
	})
}

func writeHeapProfile(b *testing.B, path string) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
}

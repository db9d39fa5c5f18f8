package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/structs"
)

// Memory as allocations are placed: a server agent and client agents, each
// a measured process of its own, run a job of the mock driver, and the
// benchmark reports how much each one's heap grew from before the job was
// registered until every allocation runs, against the goal: at most three
// times the job's own size (its JSON) plus 2 KiB per allocation, on the
// server for all the job's allocations and on each client for those it
// runs. An allocation refers to its job version; a copy of the job per
// allocation would show as growth of the job's size times the count.

// perAllocGoal and jobCopiesGoal make up the goal.
const (
	perAllocGoal  = 2 << 10
	jobCopiesGoal = 3
)

// BenchmarkMemory_Groups1000 places a job of 1,000 groups of one small
// task each on one client.
func BenchmarkMemory_Groups1000(b *testing.B) {
	benchmarkPlacementMemory(b, mockJob("mem-groups", 1000, 1), 1)
}

// BenchmarkMemory_Count5000 places a job of one group of count 5,000 of a
// small task on three clients (a node's memory holds about 2,300 of the
// smallest tasks, 10 MB each).
func BenchmarkMemory_Count5000(b *testing.B) {
	benchmarkPlacementMemory(b, mockJob("mem-count", 1, 5000), 3)
}

func benchmarkPlacementMemory(b *testing.B, job map[string]any, clients int) {
	encoded, err := json.Marshal(job)
	if err != nil {
		b.Fatal(err)
	}
	jobSize := int64(len(encoded))
	jobHeap := jobHeapSize(b, encoded)
	total := jobAllocCount(job)
	key, err := nomadrpc.GenerateClusterKey()
	if err != nil {
		b.Fatal(err)
	}
	decoded, err := nomadrpc.ParseClusterKey(key)
	if err != nil {
		b.Fatal(err)
	}
	secret := nomadrpc.EncodeRegistrationSecret(decoded)
	for range b.N {
		dir := b.TempDir()
		server := startMeasuredAgent(b, "server", fmt.Sprintf(serverHCL, filepath.Join(dir, "server"), key))
		nodes := make(map[string]*measuredAgent, clients)
		for i := range clients {
			name := fmt.Sprintf("client-%d", i)
			nodes[name] = startMeasuredAgent(b, name, fmt.Sprintf(clientHCL, name, filepath.Join(dir, name), server.RPCAddr, secret))
		}
		p := server.proc()
		p.waitUntil("every client node ready", pollGap, 2*time.Minute, func() (bool, error) {
			var list []struct{ Status string }
			if err := p.getJSON("/v1/nodes", &list); err != nil || len(list) != clients {
				return false, err
			}
			for _, n := range list {
				if n.Status != "ready" {
					return false, nil
				}
			}
			return true, nil
		})
		time.Sleep(2 * time.Second) // the figures are memory at rest
		serverBefore := server.heap()
		clientBefore := make(map[string]heapStats, clients)
		for name, c := range nodes {
			clientBefore[name] = c.heap()
		}

		start := time.Now()
		if err := p.registerJob(job); err != nil {
			b.Fatal(err)
		}
		var perNode map[string]int
		p.waitUntil(fmt.Sprintf("%d allocations running", total), 500*time.Millisecond, 20*time.Minute, func() (bool, error) {
			var stubs []struct{ NodeName, ClientStatus string }
			if err := p.getJSON("/v1/job/"+job["ID"].(string)+"/allocations", &stubs); err != nil {
				return false, err
			}
			perNode = make(map[string]int)
			for _, s := range stubs {
				if s.ClientStatus != "running" {
					return false, nil
				}
				perNode[s.NodeName]++
			}
			return len(stubs) == total, nil
		})
		b.ReportMetric(time.Since(start).Seconds(), "register_to_running_s")
		time.Sleep(2 * time.Second)

		b.Logf("job: %d allocations, %d bytes of JSON, %d bytes decoded in memory; goal: growth ≤ %d × job size + %d bytes per allocation",
			total, jobSize, jobHeap, jobCopiesGoal, perAllocGoal)
		sizes := jobSizes{json: jobSize, heap: jobHeap}
		reportGrowth(b, "server", serverBefore, measure(server, "server"), sizes, total)
		for name, c := range nodes {
			reportGrowth(b, name, clientBefore[name], measure(c, name), sizes, perNode[name])
		}
		server.stop()
		for _, c := range nodes {
			c.stop()
		}
	}
}

// measure is a's heap, and its heap profile too when envProfiles names a
// directory.
func measure(a *measuredAgent, who string) heapStats {
	dir := os.Getenv(envProfiles)
	if dir == "" {
		return a.heap()
	}
	return a.heapWithProfile(filepath.Join(dir, who+".heap"))
}

// jobSizes are two measures of a job's own size: its JSON, as the issue
// states a job's size, and one decoded, canonical copy in memory, which is
// what a server or client holds and is many times larger for a job of
// many small groups (every group and task brings its maps, policies and
// defaults).
type jobSizes struct{ json, heap int64 }

// jobHeapSize is the heap one decoded, canonical copy of the job takes.
func jobHeapSize(b *testing.B, encoded []byte) int64 {
	const copies = 4
	jobs := make([]*structs.Job, copies)
	// Once first, so that what decoding caches once (encoding/json's
	// view of each type) is not counted.
	var warm structs.Job
	if err := json.Unmarshal(encoded, &warm); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range jobs {
		jobs[i] = new(structs.Job)
		if err := json.Unmarshal(encoded, jobs[i]); err != nil {
			b.Fatal(err)
		}
		jobs[i].Canonicalize()
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(jobs)
	return (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / copies
}

// reportGrowth reports how much one agent's heap grew for the allocations
// it holds, and how that compares with the goal, with the job's size
// taken either way.
func reportGrowth(b *testing.B, who string, before, after heapStats, job jobSizes, allocs int) {
	grewAlloc := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	grewInuse := int64(after.HeapInuse) - int64(before.HeapInuse)
	b.ReportMetric(float64(grewInuse)/(1<<20), who+"_heap_inuse_growth_MiB")
	b.ReportMetric(float64(grewAlloc)/(1<<20), who+"_heap_alloc_growth_MiB")
	grewStacks := int64(after.StackInuse) - int64(before.StackInuse)
	b.ReportMetric(float64(grewStacks)/(1<<20), who+"_stack_growth_MiB")
	verdict := func(size int64) string {
		goal := jobCopiesGoal*size + int64(allocs)*perAllocGoal
		perAlloc := float64(0)
		if allocs > 0 {
			perAlloc = float64(grewAlloc-jobCopiesGoal*size) / float64(allocs)
		}
		v := "within"
		if grewAlloc > goal {
			v = "OVER"
		}
		return fmt.Sprintf("goal %s, %s (%.0f bytes per allocation beyond %d job copies)", mib(goal), v, perAlloc, jobCopiesGoal)
	}
	b.Logf("%s (%d allocations): before %s; after %s; growth: alloc %s, in use %s, stacks %s (%d goroutines); job size as JSON: %s; as decoded: %s",
		who, allocs, before, after, mib(grewAlloc), mib(grewInuse), mib(grewStacks), after.Goroutines-before.Goroutines, verdict(job.json), verdict(job.heap))
}

// serverHCL and clientHCL configure the measured agents: a server with a
// data dir (raft's log on disk, as in production) and clients of the mock
// driver.
const serverHCL = `
data_dir  = %q
bind_addr = "127.0.0.1"
server {
  enabled          = true
  bootstrap_expect = 1
  encrypt          = %q
}
`

const clientHCL = `
name      = %q
data_dir  = %q
bind_addr = "127.0.0.1"
client {
  enabled             = true
  servers             = [%q]
  registration_secret = %q
}
plugin "mock_driver" {
  config {
    enabled = true
  }
}
`

// mockJob is a batch job of groups groups of count allocations each of
// one mock task that runs for an hour, asking the least a task may ask
// for, as wire JSON.
func mockJob(id string, groups, count int) map[string]any {
	tgs := make([]any, groups)
	for i := range tgs {
		tgs[i] = map[string]any{
			"Name": fmt.Sprintf("g%04d", i), "Count": count,
			"Tasks": []any{map[string]any{
				"Name": "t", "Driver": "mock_driver",
				"Config":    map[string]any{"run_for": "1h"},
				"Resources": map[string]any{"CPU": 1, "MemoryMB": 10},
			}},
		}
	}
	return map[string]any{"ID": id, "Name": id, "Type": "batch", "Datacenters": []string{"dc1"}, "TaskGroups": tgs}
}

func jobAllocCount(job map[string]any) int {
	n := 0
	for _, tg := range job["TaskGroups"].([]any) {
		n += tg.(map[string]any)["Count"].(int)
	}
	return n
}

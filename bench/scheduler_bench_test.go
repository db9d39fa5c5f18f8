package bench

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/drover-io/drover/drivers/mock"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/structs"
)

// The scheduler benchmark's cluster and workload.
const (
	benchNodes       = 5000
	benchJobs        = 100
	benchCountPerJob = 100
	registerWorkers  = 64
)

// BenchmarkScheduler_BatchPlacement places 10,000 batch allocations (100
// jobs of count 100, registered at once) on 5,000 simulated nodes in an
// in-process dev-mode server, and reports placements per second from the
// first registration until every allocation is committed, with the
// latency of plan application (check against the latest state plus raft
// commit).
func BenchmarkScheduler_BatchPlacement(b *testing.B) {
	for range b.N {
		runSchedulerBench(b)
	}
}

func runSchedulerBench(b *testing.B) {
	b.StopTimer()
	srv := startBenchServer(b)
	defer srv.Shutdown()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	start := time.Now()
	registerFakeNodes(ctx, b, srv, benchNodes)
	b.Logf("registered %d nodes in %s", benchNodes, time.Since(start).Round(time.Millisecond))

	b.StartTimer()
	start = time.Now()
	evalIDs := registerBatchJobs(ctx, b, srv)
	waitForEvals(ctx, b, srv, evalIDs)
	elapsed := time.Since(start)
	b.StopTimer()

	placed := countPlaced(b, srv)
	if placed != benchJobs*benchCountPerJob {
		b.Fatalf("placed %d allocations, want %d", placed, benchJobs*benchCountPerJob)
	}
	apply, submit := srv.PlanApplyStats(), srv.PlanSubmitStats()
	b.ReportMetric(float64(placed)/elapsed.Seconds(), "placements/s")
	b.ReportMetric(ms(apply.P99), "p99-plan-apply-ms")
	b.ReportMetric(ms(apply.P50), "p50-plan-apply-ms")
	b.ReportMetric(ms(submit.P99), "p99-plan-submit-ms")
	b.ReportMetric(float64(apply.Count), "plans")
	b.Logf("placed %d allocations in %s: %.0f placements/s; %d plans; plan apply (check + commit) p50 %s, p99 %s, max %s; plan submit (queue + apply) p99 %s",
		placed, elapsed.Round(time.Millisecond), float64(placed)/elapsed.Seconds(),
		apply.Count, apply.P50, apply.P99, apply.Max, submit.P99)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// startBenchServer starts a dev-mode server on a free loopback port and
// waits for it to lead.
func startBenchServer(b *testing.B) *nomad.Server {
	cfg := nomad.DefaultConfig()
	cfg.NodeName = "bench"
	cfg.DevMode = true
	cfg.RPCAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 0}
	cfg.Logger = hclog.New(&hclog.LoggerOptions{Name: "bench", Level: hclog.Error})
	rc := raft.DefaultConfig()
	rc.HeartbeatTimeout = 200 * time.Millisecond
	rc.ElectionTimeout = 200 * time.Millisecond
	rc.LeaderLeaseTimeout = 100 * time.Millisecond
	cfg.RaftConfig = rc
	// The simulated nodes never heartbeat; keep them up for the run.
	cfg.MinHeartbeatTTL = time.Hour
	srv, err := nomad.NewServer(cfg)
	if err != nil {
		b.Fatalf("start server: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.WaitForLeader(ctx); err != nil {
		b.Fatal(err)
	}
	return srv
}

// benchNode is a simulated client: 4 cores, 4000 MHz, 8 GiB.
func benchNode(i int) *structs.Node {
	name := fmt.Sprintf("sim-%05d", i)
	return &structs.Node{
		ID:                    structs.GenerateUUID(),
		Name:                  name,
		Datacenter:            "dc1",
		NodePool:              structs.DefaultNodePool,
		Status:                structs.NodeStatusReady,
		SchedulingEligibility: structs.NodeSchedulingEligible,
		Attributes: map[string]string{
			"kernel.name":     "linux",
			"cpu.arch":        "amd64",
			"unique.hostname": name,
		},
		Drivers: map[string]*structs.DriverInfo{mock.DriverName: {Detected: true, Healthy: true}},
		NodeResources: &structs.NodeResources{
			Cpu:    structs.NodeCpuResources{CpuShares: 4000, TotalCpuCores: 4},
			Memory: structs.NodeMemoryResources{MemoryMB: 8192},
			Disk:   structs.NodeDiskResources{DiskMB: 100000},
		},
	}
}

// registerFakeNodes registers n nodes through raft, many at a time so that
// raft batches them.
func registerFakeNodes(ctx context.Context, b *testing.B, srv *nomad.Server, n int) {
	work := make(chan int)
	var wg sync.WaitGroup
	errs := make(chan error, registerWorkers)
	for range registerWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if _, err := srv.NodeRegister(ctx, benchNode(i)); err != nil {
					errs <- fmt.Errorf("register node %d: %w", i, err)
					return
				}
			}
		}()
	}
	for i := range n {
		select {
		case work <- i:
		case err := <-errs:
			b.Fatal(err)
		}
	}
	close(work)
	wg.Wait()
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
}

// benchJob is a batch job of count benchCountPerJob running the mock
// driver, 100 MHz and 256 MB per allocation.
func benchJob(i int) *structs.Job {
	job := &structs.Job{
		ID:          fmt.Sprintf("batch-%03d", i),
		Type:        structs.JobTypeBatch,
		Datacenters: []string{"dc1"},
		TaskGroups: []*structs.TaskGroup{{
			Name:  "work",
			Count: benchCountPerJob,
			Tasks: []*structs.Task{{
				Name:      "work",
				Driver:    mock.DriverName,
				Config:    map[string]any{"run_for": "1s"},
				Resources: &structs.Resources{CPU: 100, MemoryMB: 256},
			}},
		}},
	}
	job.Canonicalize()
	return job
}

// registerBatchJobs registers every job at once and returns their
// evaluations.
func registerBatchJobs(ctx context.Context, b *testing.B, srv *nomad.Server) []string {
	evalIDs := make([]string, benchJobs)
	errs := make([]error, benchJobs)
	var wg sync.WaitGroup
	for i := range benchJobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := srv.RegisterJob(ctx, &nomad.JobRegisterRequest{Job: benchJob(i)})
			if err != nil {
				errs[i] = err
				return
			}
			evalIDs[i] = resp.EvalID
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			b.Fatalf("register job %d: %v", i, err)
		}
	}
	return evalIDs
}

// waitForEvals waits until every evaluation completed: its allocations are
// committed by then.
func waitForEvals(ctx context.Context, b *testing.B, srv *nomad.Server, evalIDs []string) {
	remaining := evalIDs
	for len(remaining) > 0 {
		var next []string
		for _, id := range remaining {
			eval, err := srv.State().EvalByID(nil, id)
			if err != nil {
				b.Fatal(err)
			}
			switch {
			case eval == nil:
				b.Fatalf("evaluation %s vanished", id)
			case eval.Status == structs.EvalStatusFailed || eval.Status == structs.EvalStatusCancelled:
				b.Fatalf("evaluation %s of job %s ended %s: %s", id, eval.JobID, eval.Status, eval.StatusDescription)
			case eval.Status != structs.EvalStatusComplete:
				next = append(next, id)
			case len(eval.FailedTGAllocs) > 0:
				b.Fatalf("evaluation %s of job %s could not place everything", id, eval.JobID)
			}
		}
		remaining = next
		if len(remaining) == 0 {
			return
		}
		select {
		case <-ctx.Done():
			b.Fatalf("%d evaluations still not complete: %v", len(remaining), ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// countPlaced counts the allocations meant to run.
func countPlaced(b *testing.B, srv *nomad.Server) int {
	allocs, err := srv.State().Allocs(nil)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, a := range allocs {
		if !a.TerminalStatus() {
			n++
		}
	}
	return n
}

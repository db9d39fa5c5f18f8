package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/drover-io/drover/e2e/agentproc"
)

// Targets of the client benchmarks. They are reported beside each figure;
// a benchmark measures, it does not fail on a slow machine.
const (
	targetBatchSubmitToDead = 2500 * time.Millisecond
	targetCount50Running    = 1500 * time.Millisecond
	targetPerTaskMiB        = 3.0
	targetStartup           = 500 * time.Millisecond
	targetIdleRSSMiB        = 40.0
	targetRestartRecovery   = 2 * time.Second
)

// pollGap is how often the benchmarks poll the agent: short against the
// figures measured, long enough not to load a two-core machine.
const pollGap = 10 * time.Millisecond

func report(b *testing.B, name string, got time.Duration, target time.Duration) {
	b.ReportMetric(got.Seconds(), name+"_s")
	b.Logf("%s: %s (target ≤ %s)", name, got.Round(time.Millisecond), target)
}

// BenchmarkClient_BatchJobs registers 100 batch jobs of one raw_exec
// /bin/true task each, concurrently over HTTP, with a dev agent, and
// measures the time from the first submission until every job is dead
// with every allocation complete.
func BenchmarkClient_BatchJobs(b *testing.B) {
	const jobs = 100
	for range b.N {
		p := startAgent(b, b.TempDir(), 0, 0, "-dev")
		p.waitUntil("node ready", pollGap, time.Minute, p.nodeReady)

		start := time.Now()
		var wg sync.WaitGroup
		errs := make(chan error, jobs)
		for i := range jobs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- p.registerJob(rawExecJob(fmt.Sprintf("bench-batch-%03d", i), "batch", 1, 100, 32, "/bin/true"))
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
		p.waitUntil("every job dead", pollGap, 2*time.Minute, func() (bool, error) {
			var list []struct{ Status string }
			if err := p.getJSON("/v1/jobs?prefix=bench-batch-", &list); err != nil {
				return false, err
			}
			if len(list) != jobs {
				return false, nil
			}
			for _, j := range list {
				if j.Status != "dead" {
					return false, nil
				}
			}
			allocs, err := p.allocs("bench-batch-")
			if err != nil || len(allocs) != jobs {
				return false, err
			}
			for _, a := range allocs {
				if a.ClientStatus != "complete" {
					return false, fmt.Errorf("alloc %s of %s is %s", a.ID, a.JobID, a.ClientStatus)
				}
			}
			return true, nil
		})
		report(b, "submit_to_all_dead", time.Since(start), targetBatchSubmitToDead)
		p.stop()
	}
}

// BenchmarkClient_Count50 registers one job of 50 raw_exec /bin/sleep 600
// tasks (cpu 20, memory 32) with a dev agent, measures the time until all
// 50 run, and the memory each running task costs: the proportional set
// size of the agent and every process below it, less the idle agent's,
// divided by 50.
func BenchmarkClient_Count50(b *testing.B) {
	const count = 50
	for range b.N {
		p := startAgent(b, b.TempDir(), 0, 0, "-dev")
		p.waitUntil("node ready", pollGap, time.Minute, p.nodeReady)
		time.Sleep(2 * time.Second) // let the idle agent settle: the figure is memory at rest
		idle := treePSS(p.Pid())

		start := time.Now()
		if err := p.registerJob(rawExecJob("bench-count50", "service", count, 20, 32, "/bin/sleep", "600")); err != nil {
			b.Fatal(err)
		}
		p.waitUntil("50 allocations running", pollGap, 2*time.Minute, func() (bool, error) {
			allocs, err := p.allocs("bench-count50")
			if err != nil || len(allocs) != count {
				return false, err
			}
			for _, a := range allocs {
				if a.ClientStatus != "running" {
					return false, nil
				}
			}
			return true, nil
		})
		report(b, "register_to_50_running", time.Since(start), targetCount50Running)

		time.Sleep(2 * time.Second) // let the supervisors settle: the figure is memory at rest
		procs := len(descendants(p.Pid()))
		loaded := treePSS(p.Pid())
		agentNow := memKiB(p.Pid(), "Pss")
		// A supervisor's Pss_Anon is its private memory, the part of its
		// cost that the binary's shared pages do not dilute.
		var supervisors, supervisorsAnon, nSupervisors, others int64
		for _, c := range descendants(p.Pid()) {
			cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", c))
			if strings.Contains(string(cmdline), "task-supervisor") {
				supervisors += memKiB(c, "Pss")
				supervisorsAnon += memKiB(c, "Pss_Anon")
				nSupervisors++
			} else {
				others += memKiB(c, "Pss")
			}
		}
		b.Logf("PSS: agent %d KiB (idle %d), supervisors %d KiB (Pss_Anon %d KiB each), tasks %d KiB",
			agentNow, idle, supervisors, supervisorsAnon/max(nSupervisors, 1), others)
		perTask := float64(loaded-idle) / count / 1024
		b.ReportMetric(perTask, "MiB/task")
		b.Logf("memory per running task: %.2f MiB (idle agent %.1f MiB PSS, with %d tasks %.1f MiB PSS over %d processes; target ≤ %.0f MiB)",
			perTask, float64(idle)/1024, count, float64(loaded)/1024, procs+1, targetPerTaskMiB)
		p.stop()
	}
}

// BenchmarkAgent_DevStartup measures the time from starting `drover agent
// -dev` until it has a leader and its node is ready, then the agent's
// resident memory after a minute of idling.
func BenchmarkAgent_DevStartup(b *testing.B) {
	for range b.N {
		p := startAgent(b, b.TempDir(), 0, 0, "-dev")
		p.waitUntil("leader and node ready", 2*time.Millisecond, time.Minute, p.nodeReady)
		report(b, "exec_to_node_ready", time.Since(p.Started()), targetStartup)

		time.Sleep(60 * time.Second) // the figure is the RSS after a minute of idling
		rss := float64(memKiB(p.Pid(), "Rss")) / 1024
		b.ReportMetric(rss, "idle_RSS_MiB")
		b.Logf("idle agent RSS after 60s: %.1f MiB (target ≤ %.0f MiB)", rss, targetIdleRSSMiB)
		p.stop()
	}
}

// BenchmarkAgent_RestartRecovery runs an agent (server and client, with a
// data dir) with 10 long tasks and 10 tasks that end after 2s, SIGKILLs
// it, waits until the short tasks have ended, restarts it on the same data
// dir and measures the time from the restart until the server shows every
// allocation's true state: the short ones complete, the long ones still
// running (re-attached, not started again).
func BenchmarkAgent_RestartRecovery(b *testing.B) {
	for range b.N {
		dir := b.TempDir()
		config := filepath.Join(dir, "agent.hcl")
		hcl := agentproc.ServerClientConfig(filepath.Join(dir, "data"))
		if err := os.WriteFile(config, []byte(hcl), 0o644); err != nil {
			b.Fatal(err)
		}
		httpPort, rpcPort := agentproc.FreePort(b), agentproc.FreePort(b)
		first := startAgent(b, dir, httpPort, rpcPort, "-config", config)
		first.waitUntil("node ready", pollGap, time.Minute, first.nodeReady)
		if err := first.registerJob(rawExecJob("bench-long", "service", 10, 20, 32, "/bin/sleep", "600")); err != nil {
			b.Fatal(err)
		}
		if err := first.registerJob(rawExecJob("bench-short", "batch", 10, 20, 32, "/bin/sleep", "2")); err != nil {
			b.Fatal(err)
		}
		first.waitUntil("20 allocations running", pollGap, 2*time.Minute, func() (bool, error) {
			allocs, err := first.allocs("bench-")
			if err != nil || len(allocs) != 20 {
				return false, err
			}
			for _, a := range allocs {
				if a.ClientStatus != "running" {
					return false, nil
				}
			}
			return true, nil
		})
		tasks := agentproc.Descendants(first.Pid())
		first.kill()
		time.Sleep(3 * time.Second) // the short tasks end while no agent runs

		second := startAgent(b, dir, httpPort, rpcPort, "-config", config)
		b.Cleanup(func() { agentproc.KillGroups(tasks) })
		second.waitUntil("every allocation's true state", pollGap, 2*time.Minute, func() (bool, error) {
			allocs, err := second.allocs("bench-")
			if err != nil || len(allocs) != 20 {
				return false, err
			}
			for _, a := range allocs {
				want := "running"
				if a.JobID == "bench-short" {
					want = "complete"
				}
				if a.ClientStatus != want {
					return false, nil
				}
			}
			return true, nil
		})
		report(b, "restart_to_true_state", time.Since(second.Started()), targetRestartRecovery)
		checkReattached(b, second)
		second.stop()
		agentproc.KillGroups(tasks)
	}
}

// checkReattached fails the benchmark when a long task was started again
// instead of re-attached.
func checkReattached(b *testing.B, p *agentProc) {
	b.Helper()
	allocs, err := p.allocs("bench-long")
	if err != nil {
		b.Fatal(err)
	}
	for _, stub := range allocs {
		var alloc struct {
			TaskStates map[string]struct {
				Events []struct{ Type string }
			}
		}
		if err := p.getJSON("/v1/allocation/"+stub.ID, &alloc); err != nil {
			b.Fatal(err)
		}
		started := 0
		for _, ev := range alloc.TaskStates["t"].Events {
			if ev.Type == "Started" {
				started++
			}
		}
		if started != 1 {
			b.Fatalf("allocation %s: task started %d times, want once (re-attached)", stub.ID, started)
		}
	}
}

package bench

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// execRuns is how many single-allocation jobs of each driver
// BenchmarkExec_VersusRawExec runs one after another; execMemTasks how
// many tasks of each it runs at once to measure their memory.
const (
	execRuns     = 10
	execMemTasks = 20
)

// execJob is rawExecJob with the exec driver: the same command, isolated.
func execJob(id, jobType string, count int, cpu, memoryMB int, command string, args ...string) map[string]any {
	job := rawExecJob(id, jobType, count, cpu, memoryMB, command, args...)
	job["TaskGroups"].([]any)[0].(map[string]any)["Tasks"].([]any)[0].(map[string]any)["Driver"] = "exec"
	return job
}

// startLatency is the time from the task's Task Setup event (the client
// has made its directories and is about to call the driver) to its
// Started event (the driver's StartTask returned).
func (a *maxRunAlloc) startLatency() time.Duration {
	var setup, started int64
	for _, ev := range a.TaskStates["t"].Events {
		switch {
		case ev.Type == "Task Setup" && setup == 0:
			setup = ev.Time
		case ev.Type == "Started" && started == 0:
			started = ev.Time
		}
	}
	return time.Duration(started - setup)
}

func loadAverage() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// BenchmarkExec_VersusRawExec measures the exec driver against raw_exec,
// side by side on dev agents in one run (it needs root, as the exec
// driver does):
//
//   - start latency: from a task's Task Setup event to its Started event,
//     for execRuns single-allocation batch jobs of each driver, one after
//     another, alternating;
//   - kill lateness: how long after its 2 s max_run_duration deadline each
//     of those tasks finished;
//   - memory per task: the proportional set size of the agent and every
//     process below it (supervisors and tasks) with execMemTasks tasks of
//     one driver running, less the idle agent's, per task; on a fresh
//     agent for each driver.
func BenchmarkExec_VersusRawExec(b *testing.B) {
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			b.Fatal("the exec driver's benchmark needs root in CI")
		}
		b.Skip("the exec driver's benchmark needs root")
	}
	const budget = 2 * time.Second
	drivers := []string{"raw_exec", "exec"}
	jobOf := map[string]func(id, jobType string, count int, cpu, memoryMB int, command string, args ...string) map[string]any{
		"raw_exec": rawExecJob, "exec": execJob,
	}
	b.Logf("load average before: %s", loadAverage())
	start := map[string][]time.Duration{}
	late := map[string][]time.Duration{}
	perTask := map[string]float64{}
	for n := range b.N {
		p := startAgent(b, b.TempDir(), 0, 0, "-dev")
		p.waitUntil("node ready", pollGap, time.Minute, p.nodeReady)
		for i := range execRuns {
			order := drivers
			if i%2 == 1 {
				order = []string{"exec", "raw_exec"}
			}
			for _, driver := range order {
				id := fmt.Sprintf("bench-%s-%d-%02d", strings.ReplaceAll(driver, "_", ""), n, i)
				job := jobOf[driver](id, "batch", 1, 100, 32, "/bin/sleep", "1000")
				job["TaskGroups"].([]any)[0].(map[string]any)["MaxRunDuration"] = int64(budget)
				if err := p.registerJob(job); err != nil {
					b.Fatal(err)
				}
				alloc := p.waitMaxRunAlloc(id)
				_, done := p.watchUntilComplete(alloc.ID)
				if done.ClientDescription != "allocation exceeded max_run_duration" {
					b.Fatalf("allocation %s of %s ended %q, not by its deadline", done.ID, id, done.ClientDescription)
				}
				start[driver] = append(start[driver], done.startLatency())
				late[driver] = append(late[driver], done.killLateness())
			}
		}
		p.stop()

		for _, driver := range drivers {
			perTask[driver] = memoryPerTask(b, driver, jobOf[driver](fmt.Sprintf("bench-mem-%s-%d", strings.ReplaceAll(driver, "_", ""), n),
				"service", execMemTasks, 20, 32, "/bin/sleep", "600"))
		}
	}
	for _, driver := range drivers {
		name := strings.ReplaceAll(driver, "_", "")
		b.ReportMetric(ms(median(start[driver])), name+"_start_median_ms")
		b.ReportMetric(ms(median(late[driver])), name+"_kill_lateness_median_ms")
		b.ReportMetric(ms(slices.Max(late[driver])), name+"_kill_lateness_max_ms")
		b.ReportMetric(perTask[driver], name+"_MiB/task")
		b.Logf("%s: start median %s (max %s); kill lateness median %s (max %s); %.2f MiB per running task",
			driver, median(start[driver]), slices.Max(start[driver]), median(late[driver]), slices.Max(late[driver]), perTask[driver])
	}
	b.Logf("load average after: %s", loadAverage())
}

// memoryPerTask runs job (count tasks of one driver) on a fresh dev agent
// and returns what each running task adds to the PSS of the agent and
// its processes.
func memoryPerTask(b *testing.B, driver string, job map[string]any) float64 {
	count := job["TaskGroups"].([]any)[0].(map[string]any)["Count"].(int)
	id := job["ID"].(string)
	p := startAgent(b, b.TempDir(), 0, 0, "-dev")
	defer p.stop()
	p.waitUntil("node ready", pollGap, time.Minute, p.nodeReady)
	time.Sleep(2 * time.Second) // memory at rest
	idle := treePSS(p.Pid())
	if err := p.registerJob(job); err != nil {
		b.Fatal(err)
	}
	var allocs []maxRunAlloc
	p.waitUntil(fmt.Sprintf("%d %s allocations running", count, driver), pollGap, 2*time.Minute, p.jobAllocsAll(id, count, "running", &allocs))
	time.Sleep(2 * time.Second) // memory at rest
	loaded := treePSS(p.Pid())
	return float64(loaded-idle) / float64(count) / 1024
}

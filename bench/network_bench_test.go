package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// networkRuns is how many single-allocation jobs of each network mode
// BenchmarkNetwork_BridgeVersusHost runs, one after another, alternating.
const networkRuns = 20

// receivedToStarted is the time from the task's Received event (its
// runner was made, before the allocation's Prerun hooks, the network's
// among them) to its Started event (the driver's StartTask returned).
func (a *maxRunAlloc) receivedToStarted() time.Duration {
	var received, started int64
	for _, ev := range a.TaskStates["t"].Events {
		switch {
		case ev.Type == "Received" && received == 0:
			received = ev.Time
		case ev.Type == "Started" && started == 0:
			started = ev.Time
		}
	}
	return time.Duration(started - received)
}

// BenchmarkNetwork_BridgeVersusHost measures what a bridge-mode network
// adds to an allocation's start: for networkRuns batch jobs of each mode
// on one dev agent, in one run, alternating, one raw_exec task (/bin/true)
// with one mapped port, the time from the task's Received event to its
// Started event. The bridge mode's includes making the namespace and
// running the bridge, host-local, firewall and portmap plugins. It needs
// root and the CNI plugins, as bridge mode does.
func BenchmarkNetwork_BridgeVersusHost(b *testing.B) {
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			b.Fatal("the bridge network's benchmark needs root in CI")
		}
		b.Skip("the bridge network's benchmark needs root")
	}
	modes := []string{"host", "bridge"}
	bridge := fmt.Sprintf("drvb%d", os.Getpid()%100000)
	b.Cleanup(func() {
		_ = exec.Command("ip", "link", "del", bridge).Run()
		_ = os.RemoveAll(filepath.Join("/var/lib/cni/networks", bridge))
	})
	b.Logf("load average before: %s", loadAverage())
	start := map[string][]time.Duration{}
	for n := range b.N {
		dir := b.TempDir()
		config := filepath.Join(dir, "agent.hcl")
		err := os.WriteFile(config, []byte(fmt.Sprintf("client {\n  bridge_network_name = %q\n  bridge_network_subnet = \"172.31.254.0/24\"\n}\n", bridge)), 0o600)
		if err != nil {
			b.Fatal(err)
		}
		p := startAgent(b, dir, 0, 0, "-dev", "-config", config)
		p.waitUntil("node ready", pollGap, time.Minute, p.nodeReady)
		for i := range networkRuns {
			order := modes
			if i%2 == 1 {
				order = []string{"bridge", "host"}
			}
			for _, mode := range order {
				id := fmt.Sprintf("bench-net-%s-%d-%02d", mode, n, i)
				job := rawExecJob(id, "batch", 1, 50, 32, "/bin/true")
				job["TaskGroups"].([]any)[0].(map[string]any)["Networks"] = []any{map[string]any{
					"Mode": mode, "DynamicPorts": []any{map[string]any{"Label": "http", "To": 8080}},
				}}
				if err := p.registerJob(job); err != nil {
					b.Fatal(err)
				}
				alloc := p.waitMaxRunAlloc(id)
				_, done := p.watchUntilComplete(alloc.ID)
				start[mode] = append(start[mode], done.receivedToStarted())
			}
		}
		p.stop()
	}
	for _, mode := range modes {
		b.ReportMetric(ms(median(start[mode])), mode+"_start_median_ms")
		b.Logf("%s: received to started median %s (min %s, max %s) over %d allocations",
			mode, median(start[mode]), slices.Min(start[mode]), slices.Max(start[mode]), len(start[mode]))
	}
	b.Logf("load average after: %s", loadAverage())
}

package bench

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Targets of the max_run_warning benchmark, over maxRunRuns runs: as for
// the kill.
const (
	targetWarningLatenessMedian = 5 * time.Millisecond
	targetWarningLatenessMax    = 20 * time.Millisecond
)

// warningTrap waits for SIGUSR1, writes when it got it (bash's
// $EPOCHREALTIME, read without starting a process) to alloc/warned and
// exits 0.
const warningTrap = `trap 'echo $EPOCHREALTIME > "$NOMAD_ALLOC_DIR/warned"; kill $child; exit 0' USR1; sleep 1000 & child=$!; wait $child`

// warningJob is a batch job of one warningTrap task whose group has a
// max_run_duration of budget and whose task is warned before ahead.
func warningJob(id string, budget, before time.Duration) map[string]any {
	job := rawExecJob(id, "batch", 1, 20, 32, "/bin/bash", "-c", warningTrap)
	tg := job["TaskGroups"].([]any)[0].(map[string]any)
	tg["MaxRunDuration"] = int64(budget)
	tg["Tasks"].([]any)[0].(map[string]any)["MaxRunWarning"] = map[string]any{"Signal": "SIGUSR1", "Before": int64(before)}
	return job
}

// warningAlloc is what the benchmark reads of an allocation.
type warningAlloc struct {
	ID           string
	ClientStatus string
	TaskStates   map[string]struct {
		MaxRunWarningAt int64
		Events          []struct {
			Type string
			Time int64
		}
	}
}

// BenchmarkMaxRun_WarningLateness runs maxRunRuns batch jobs one after
// another on one dev agent, each a task that traps its max_run_warning
// (SIGUSR1 1s before the group's 2s deadline) and exits, and measures the
// warning's lateness: when the task received the signal minus the moment
// it was due (CreateTime + 2s - 1s, the task state's MaxRunWarningAt).
func BenchmarkMaxRun_WarningLateness(b *testing.B) {
	warningLateness(b, "-dev")
}

// BenchmarkMaxRun_WarningLateness_DataDir is BenchmarkMaxRun_WarningLateness
// on an agent with a data dir: the client records the warning in its
// on-disk state (bbolt, synced) before it signals.
func BenchmarkMaxRun_WarningLateness_DataDir(b *testing.B) {
	warningLateness(b, "-dev", "-data-dir", b.TempDir())
}

func warningLateness(b *testing.B, agentArgs ...string) {
	var received, signaling []time.Duration
	for n := range b.N {
		p := startAgent(b, b.TempDir(), 0, 0, agentArgs...)
		p.waitUntil("node ready", pollGap, time.Minute, p.nodeReady)
		for i := range maxRunRuns {
			id := fmt.Sprintf("bench-warning-%d-%02d", n, i)
			if err := p.registerJob(warningJob(id, 2*time.Second, time.Second)); err != nil {
				b.Fatal(err)
			}
			alloc := p.waitMaxRunAlloc(id)
			var done warningAlloc
			p.waitUntil("allocation of "+id+" complete", 10*time.Millisecond, time.Minute, func() (bool, error) {
				err := p.getJSON("/v1/allocation/"+alloc.ID, &done)
				return err == nil && done.ClientStatus == "complete", err
			})
			ts := done.TaskStates["t"]
			due := time.Unix(0, ts.MaxRunWarningAt)
			got, err := p.warnedAt(done.ID)
			if err != nil {
				b.Fatal(err)
			}
			received = append(received, got.Sub(due))
			for _, ev := range ts.Events {
				if ev.Type == "Signaling" {
					signaling = append(signaling, time.Unix(0, ev.Time).Sub(due))
				}
			}
		}
		p.stop()
	}
	if len(signaling) > 0 {
		b.Logf("Signaling event after the warning's moment: median %s, max %s", median(signaling), slices.Max(signaling))
	}
	reportLateness(b, "warning_lateness", received, targetWarningLatenessMedian, targetWarningLatenessMax)
}

// warnedAt reads the moment warningTrap wrote to the allocation's
// alloc/warned.
func (p *agentProc) warnedAt(allocID string) (time.Time, error) {
	resp, err := httpClient.Get(p.Addr + "/v1/client/fs/cat/" + allocID + "?path=alloc/warned")
	if err != nil {
		return time.Time{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return time.Time{}, err
	}
	if resp.StatusCode != http.StatusOK {
		return time.Time{}, fmt.Errorf("cat alloc/warned of %s: %s: %s", allocID, resp.Status, body)
	}
	secs, frac, _ := strings.Cut(strings.TrimSpace(string(body)), ".")
	s, err := strconv.ParseInt(secs, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("alloc/warned %q: %w", body, err)
	}
	ns, err := strconv.ParseInt((frac + "000000000")[:9], 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("alloc/warned %q: %w", body, err)
	}
	return time.Unix(s, ns), nil
}

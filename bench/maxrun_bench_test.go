package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"
)

// Targets of the max_run_duration benchmarks, over maxRunRuns runs.
const (
	maxRunRuns                  = 20
	targetKillLatenessMedian    = 5 * time.Millisecond
	targetKillLatenessMax       = 20 * time.Millisecond
	targetVisibleLatenessMedian = 50 * time.Millisecond
	targetTogetherKillMax       = 50 * time.Millisecond
)

// maxRunAlloc is what the benchmarks read of an allocation.
type maxRunAlloc struct {
	ID                string
	ClientStatus      string
	ClientDescription string
	CreateTime        int64
	MaxRunDeadline    int64
	TaskStates        map[string]struct {
		State      string
		FinishedAt time.Time
		Events     []struct {
			Type string
			Time int64
		}
	}
}

// eventLateness is how long after the deadline the task's first event of
// type typ came, or -1 without one: where in the kill time goes.
func (a *maxRunAlloc) eventLateness(typ string) time.Duration {
	for _, ev := range a.TaskStates["t"].Events {
		if ev.Type == typ {
			return time.Unix(0, ev.Time).Sub(a.deadline())
		}
	}
	return -1
}

// deadline is the allocation's max_run_duration deadline.
func (a *maxRunAlloc) deadline() time.Time { return time.Unix(0, a.MaxRunDeadline) }

// lastDeadline is the latest of the allocations' deadlines.
func lastDeadline(allocs []maxRunAlloc) time.Time {
	var last time.Time
	for _, a := range allocs {
		if a.deadline().After(last) {
			last = a.deadline()
		}
	}
	return last
}

// killLateness is how long after its deadline the allocation's task
// finished.
func (a *maxRunAlloc) killLateness() time.Duration {
	return a.TaskStates["t"].FinishedAt.Sub(a.deadline())
}

// maxRunJob is a batch job of count allocations of `sleep 1000` with the
// given max_run_duration.
func maxRunJob(id string, count int, budget time.Duration) map[string]any {
	job := rawExecJob(id, "batch", count, 20, 32, "/bin/sleep", "1000")
	job["TaskGroups"].([]any)[0].(map[string]any)["MaxRunDuration"] = int64(budget)
	return job
}

// BenchmarkMaxRun_Lateness runs maxRunRuns single-allocation batch jobs,
// one after another, each `sleep 1000` with max_run_duration 1s, on one
// dev agent, and measures for each:
//
//   - kill lateness: the task's FinishedAt minus the deadline
//     (CreateTime + 1s), as the client recorded it;
//   - visibility lateness: the first moment a blocking query on
//     /v1/allocation/:id, waiting since before the deadline, shows the
//     allocation complete, minus the deadline.
func BenchmarkMaxRun_Lateness(b *testing.B) {
	const budget = time.Second
	var kill, visible, killing []time.Duration
	for n := range b.N {
		p := startAgent(b, b.TempDir(), 0, 0, "-dev")
		p.waitUntil("node ready", pollGap, time.Minute, p.nodeReady)
		for i := range maxRunRuns {
			id := fmt.Sprintf("bench-maxrun-%d-%02d", n, i)
			if err := p.registerJob(maxRunJob(id, 1, budget)); err != nil {
				b.Fatal(err)
			}
			alloc := p.waitMaxRunAlloc(id)
			seen, done := p.watchUntilComplete(alloc.ID)
			if done.ClientDescription != "allocation exceeded max_run_duration" {
				b.Fatalf("allocation %s of %s ended %q, not by its deadline", done.ID, id, done.ClientDescription)
			}
			kill = append(kill, done.killLateness())
			killing = append(killing, done.eventLateness("Killing"))
			visible = append(visible, seen.Sub(done.deadline()))
		}
		p.stop()
	}
	b.Logf("Killing event after the deadline: median %s, max %s", median(killing), slices.Max(killing))
	reportLateness(b, "kill_lateness", kill, targetKillLatenessMedian, targetKillLatenessMax)
	reportLateness(b, "visible_lateness", visible, targetVisibleLatenessMedian, 0)
}

// BenchmarkMaxRun_TwentyTogether runs one batch job of 20 allocations of
// `sleep 1000` with max_run_duration 2s on one dev agent, and measures the
// largest kill lateness among them: 20 deadlines that fall together.
func BenchmarkMaxRun_TwentyTogether(b *testing.B) {
	twentyTogether(b, "-dev")
}

// BenchmarkMaxRun_TwentyTogether_DataDir is BenchmarkMaxRun_TwentyTogether
// on an agent with a data dir, as in production: the client records each
// expiry in its on-disk state (bbolt, synced) before it kills.
func BenchmarkMaxRun_TwentyTogether_DataDir(b *testing.B) {
	twentyTogether(b, "-dev", "-data-dir", b.TempDir())
}

func twentyTogether(b *testing.B, agentArgs ...string) {
	const count = 20
	var worst []time.Duration
	for n := range b.N {
		p := startAgent(b, b.TempDir(), 0, 0, agentArgs...)
		p.waitUntil("node ready", pollGap, time.Minute, p.nodeReady)
		id := fmt.Sprintf("bench-maxrun-together-%d", n)
		if err := p.registerJob(maxRunJob(id, count, 2*time.Second)); err != nil {
			b.Fatal(err)
		}
		// Read the allocations once they run, then leave the agent alone
		// until the deadlines have passed: polling meanwhile would compete
		// with the kills for the CPU.
		var allocs []maxRunAlloc
		p.waitUntil("20 allocations running", pollGap, time.Minute, p.jobAllocsAll(id, count, "running", &allocs))
		last := lastDeadline(allocs)
		time.Sleep(time.Until(last.Add(500 * time.Millisecond)))
		p.waitUntil("20 allocations complete", pollGap, time.Minute, p.jobAllocsAll(id, count, "complete", &allocs))
		var late, killing, terminated []time.Duration
		for _, a := range allocs {
			late = append(late, a.killLateness())
			killing = append(killing, a.eventLateness("Killing"))
			terminated = append(terminated, a.eventLateness("Terminated"))
		}
		b.Logf("after the deadline: Killing events median %s max %s; Terminated events median %s max %s",
			median(killing), slices.Max(killing), median(terminated), slices.Max(terminated))
		worst = append(worst, slices.Max(late))
		b.Logf("kill lateness of the %d allocations: median %s, max %s", count, median(late), slices.Max(late))
		p.stop()
	}
	m := slices.Max(worst)
	b.ReportMetric(ms(m), "together_kill_max_ms")
	b.Logf("20 allocations together: max kill lateness %s (target ≤ %s)", m, targetTogetherKillMax)
}

// jobAllocsAll is a wait condition: the job has count allocations, all
// with the client status want; they are left in out.
func (p *agentProc) jobAllocsAll(jobID string, count int, want string, out *[]maxRunAlloc) func() (bool, error) {
	return func() (bool, error) {
		*out = (*out)[:0]
		if err := p.getJSON("/v1/job/"+jobID+"/allocations", out); err != nil {
			return false, err
		}
		if len(*out) != count {
			return false, nil
		}
		for _, a := range *out {
			if a.ClientStatus != want {
				return false, nil
			}
		}
		return true, nil
	}
}

// waitMaxRunAlloc waits for the job's allocation and returns it.
func (p *agentProc) waitMaxRunAlloc(jobID string) maxRunAlloc {
	var allocs []maxRunAlloc
	p.waitUntil("the allocation of "+jobID, time.Millisecond, 30*time.Second, func() (bool, error) {
		if err := p.getJSON("/v1/job/"+jobID+"/allocations", &allocs); err != nil {
			return false, err
		}
		return len(allocs) == 1, nil
	})
	return allocs[0]
}

// watchUntilComplete follows the allocation with blocking queries until
// the servers show it complete, and returns when that was first seen and
// the allocation then.
func (p *agentProc) watchUntilComplete(allocID string) (time.Time, maxRunAlloc) {
	var index uint64
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		var alloc maxRunAlloc
		next, err := p.getBlocking("/v1/allocation/"+allocID, index, &alloc)
		if err != nil {
			p.b.Fatalf("watch allocation %s: %v", allocID, err)
		}
		seen := time.Now()
		if alloc.ClientStatus == "complete" {
			return seen, alloc
		}
		if alloc.ClientStatus == "failed" || alloc.ClientStatus == "lost" {
			p.b.Fatalf("allocation %s is %s: %s", allocID, alloc.ClientStatus, alloc.ClientDescription)
		}
		index = next
	}
	p.b.Fatalf("allocation %s not complete after a minute", allocID)
	return time.Time{}, maxRunAlloc{}
}

// getBlocking GETs path as a blocking query newer than index (at once when
// index is zero), decodes the answer into out and returns its
// X-Nomad-Index.
func (p *agentProc) getBlocking(path string, index uint64, out any) (uint64, error) {
	url := fmt.Sprintf("%s%s?index=%d&wait=20s", p.Addr, path, index)
	resp, err := httpClient.Get(url)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		return 0, fmt.Errorf("GET %s: %s: %s", path, resp.Status, body)
	}
	next, err := strconv.ParseUint(resp.Header.Get("X-Nomad-Index"), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("GET %s: X-Nomad-Index: %w", path, err)
	}
	return next, json.NewDecoder(resp.Body).Decode(out)
}

// reportLateness reports the median and the maximum of a lateness figure;
// a zero target is not reported.
func reportLateness(b *testing.B, name string, got []time.Duration, targetMedian, targetMax time.Duration) {
	med, worst := median(got), slices.Max(got)
	b.ReportMetric(ms(med), name+"_median_ms")
	b.ReportMetric(ms(worst), name+"_max_ms")
	sorted := slices.Clone(got)
	slices.Sort(sorted)
	line := fmt.Sprintf("%s over %d runs: median %s (target ≤ %s), max %s", name, len(got), med, targetMedian, worst)
	if targetMax > 0 {
		line += fmt.Sprintf(" (target ≤ %s)", targetMax)
	}
	b.Log(line)
	b.Logf("%s, sorted: %v", name, sorted)
}

// median of a non-empty list: the mean of the two middle values of an
// even count.
func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

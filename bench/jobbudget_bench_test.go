package bench

import (
	"fmt"
	"testing"
	"time"
)

// The job-wide budget and the finish-by deadline are enforced on the
// allocation's one deadline timer, so their kills are held to the same
// targets as the group's (targetKillLatenessMedian, ...Max).

// BenchmarkJobBudget_Lateness runs maxRunRuns single-allocation batch
// jobs, one after another, each `sleep 1000` with a job-level
// max_run_duration of 1s and no group budget, and measures the task's
// FinishedAt minus the job's deadline (its SubmitTime + 1s, the
// allocation's MaxRunDeadline with MaxRunScope "job").
func BenchmarkJobBudget_Lateness(b *testing.B) {
	lateness(b, "job_kill_lateness", "job", func(id string) map[string]any {
		job := rawExecJob(id, "batch", 1, 20, 32, "/bin/sleep", "1000")
		job["MaxRunDuration"] = int64(time.Second)
		return job
	})
}

// BenchmarkFinishBy_Lateness runs maxRunRuns single-allocation batch
// jobs, one after another, each `sleep 1000` with a group budget of 1h,
// a min_run_duration of 100ms and a finish-by deadline 1.5s after its
// submission: each starts cut to the deadline, and is killed at it. It
// measures the task's FinishedAt minus the deadline.
func BenchmarkFinishBy_Lateness(b *testing.B) {
	lateness(b, "finish_by_kill_lateness", "deadline", func(id string) map[string]any {
		job := rawExecJob(id, "batch", 1, 20, 32, "/bin/sleep", "1000")
		tg := job["TaskGroups"].([]any)[0].(map[string]any)
		tg["MaxRunDuration"] = int64(time.Hour)
		tg["MinRunDuration"] = int64(100 * time.Millisecond)
		job["Deadline"] = map[string]any{"At": time.Now().Add(1500 * time.Millisecond).UnixNano()}
		return job
	})
}

// lateness runs maxRunRuns jobs that job makes, on one dev agent per
// b.N, checks that the deadline of the given scope stopped each, and
// reports the kill lateness as name.
func lateness(b *testing.B, name, scope string, job func(id string) map[string]any) {
	var kill []time.Duration
	for n := range b.N {
		p := startAgent(b, b.TempDir(), 0, 0, "-dev")
		p.waitUntil("node ready", pollGap, time.Minute, p.nodeReady)
		for i := range maxRunRuns {
			id := fmt.Sprintf("bench-%s-%d-%02d", scope, n, i)
			if err := p.registerJob(job(id)); err != nil {
				b.Fatal(err)
			}
			alloc := p.waitMaxRunAlloc(id)
			_, done := p.watchUntilComplete(alloc.ID)
			var scoped struct{ MaxRunScope string }
			if err := p.getJSON("/v1/allocation/"+alloc.ID, &scoped); err != nil {
				b.Fatal(err)
			}
			if done.ClientDescription != "allocation exceeded max_run_duration" || scoped.MaxRunScope != scope {
				b.Fatalf("allocation %s of %s ended %q with scope %q, not by its %s deadline", done.ID, id, done.ClientDescription, scoped.MaxRunScope, scope)
			}
			kill = append(kill, done.killLateness())
		}
		p.stop()
	}
	reportLateness(b, name, kill, targetKillLatenessMedian, targetKillLatenessMax)
}

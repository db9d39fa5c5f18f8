package bench

import (
	"fmt"
	"testing"
	"time"
)

// pendingEval is what the benchmark reads of an evaluation.
type pendingEval struct {
	ID                string
	Status            string
	StatusDescription string
	BlockedEval       string
	PendingSince      int64
	ModifyTime        int64
	PendingExpired    map[string]int
}

// BenchmarkPendingTimeout_Lateness registers maxRunRuns batch jobs, one
// after another, each of one allocation that no node can hold with
// max_pending_duration 1s, on one dev agent, and measures for each:
//
//   - give-up lateness: the blocked evaluation's ModifyTime (when the
//     leader's timer fired and gave the placement up) minus its deadline
//     (PendingSince + 1s);
//   - visibility lateness: the first moment a blocking query on the
//     blocked evaluation, waiting since before the deadline, shows it
//     cancelled, minus the deadline.
func BenchmarkPendingTimeout_Lateness(b *testing.B) {
	const budget = time.Second
	var fired, visible []time.Duration
	for n := range b.N {
		p := startAgent(b, b.TempDir(), 0, 0, "-dev")
		p.waitUntil("node ready", pollGap, time.Minute, p.nodeReady)
		for i := range maxRunRuns {
			id := fmt.Sprintf("bench-pending-%d-%02d", n, i)
			job := rawExecJob(id, "batch", 1, 20, 4<<20, "/bin/sleep", "1000") // 4 TiB: never placed
			job["TaskGroups"].([]any)[0].(map[string]any)["MaxPendingDuration"] = int64(budget)
			if err := p.registerJob(job); err != nil {
				b.Fatal(err)
			}
			blockedID := p.waitBlockedEval(id)
			seen, done := p.watchUntilCancelled(blockedID)
			if done.StatusDescription != "exceeded max_pending_duration" {
				b.Fatalf("evaluation %s of %s ended %q, not by max_pending_duration", done.ID, id, done.StatusDescription)
			}
			deadline := time.Unix(0, done.PendingSince).Add(budget)
			fired = append(fired, time.Unix(0, done.ModifyTime).Sub(deadline))
			visible = append(visible, seen.Sub(deadline))
		}
		p.stop()
	}
	reportLateness(b, "pending_giveup_lateness", fired, targetKillLatenessMedian, targetKillLatenessMax)
	reportLateness(b, "pending_visible_lateness", visible, targetVisibleLatenessMedian, 0)
}

// waitBlockedEval waits for the job's blocked evaluation and returns its ID.
func (p *agentProc) waitBlockedEval(jobID string) string {
	var id string
	p.waitUntil("the blocked evaluation of "+jobID, time.Millisecond, 30*time.Second, func() (bool, error) {
		var evals []pendingEval
		if err := p.getJSON("/v1/job/"+jobID+"/evaluations", &evals); err != nil {
			return false, err
		}
		for _, e := range evals {
			if e.Status == "blocked" {
				id = e.ID
				return true, nil
			}
		}
		return false, nil
	})
	return id
}

// watchUntilCancelled follows the evaluation with blocking queries until
// it is cancelled, and returns when that was first seen and the
// evaluation then.
func (p *agentProc) watchUntilCancelled(evalID string) (time.Time, pendingEval) {
	var index uint64
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		var e pendingEval
		next, err := p.getBlocking("/v1/evaluation/"+evalID, index, &e)
		if err != nil {
			p.b.Fatalf("watch evaluation %s: %v", evalID, err)
		}
		seen := time.Now()
		if e.Status == "canceled" {
			return seen, e
		}
		index = next
	}
	p.b.Fatalf("evaluation %s not cancelled after a minute", evalID)
	return time.Time{}, pendingEval{}
}

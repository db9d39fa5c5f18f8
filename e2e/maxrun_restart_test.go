package e2e

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

// restartTolerance is the bound on when, around the original
// deadline, a task must be killed after an agent restart. A fresh budget
// would put the kill 4 s late; a deadline missed while the agent is away
// would have it killed at the restart, 6 s early.
const restartTolerance = time.Second

// TestMaxRun_AgentRestartKeepsDeadline SIGKILLs the agent at 40% of a
// 10 s budget and starts it again on the same data dir: the task, which
// lives on under its supervisor meanwhile, is killed at the original
// deadline, CreateTime + 10 s, not at the restart plus a fresh budget.
func TestMaxRun_AgentRestartKeepsDeadline(t *testing.T) {
	t.Parallel()
	const budget = 10 * time.Second
	dir := t.TempDir()
	first := startDataDirAgent(t, dir, 0, 0)
	first.runJob(sleepJob("restart", "batch", "10s", 1000))
	running := first.waitRunning("restart")
	deadline := deadlineOf(t, running, budget)
	created := unixTime(running.CreateTime)
	if time.Since(created) > budget*4/10 {
		t.Fatalf("the allocation took %s to run, past 40%% of its budget", time.Since(created))
	}

	sleepUntil(created.Add(budget * 4 / 10))
	first.Kill()
	killedAt := time.Since(created)
	second := startDataDirAgent(t, dir, first.HTTPPort, first.RPCPort)
	t.Logf("agent killed at +%s, the new one ready at +%s",
		killedAt.Round(time.Millisecond), time.Since(created).Round(time.Millisecond))

	done := second.waitAlloc(running.ID, "terminal", budget+30*time.Second, terminal)
	mustEndByDeadline(t, done)
	mustBeKilledByDeadline(t, done, "t")
	ts := task(t, done, "t")
	off := ts.FinishedAt.Sub(deadline)
	t.Logf("task finished %s from the original deadline", off)
	must.True(t, off >= -restartTolerance && off <= restartTolerance, must.Sprintf(
		"task finished %s from the original deadline %s; want within ±%s", off, deadline, restartTolerance))

	// Re-attached, not started again: one Started event.
	started := 0
	for _, ev := range ts.Events {
		if ev.Type == "Started" {
			started++
		}
	}
	must.Eq(t, 1, started, must.Sprintf("events: %v", events(ts)))
	second.waitJobStatus("restart", "dead", 10*time.Second)
}

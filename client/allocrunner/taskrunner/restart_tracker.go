package taskrunner

import (
	"fmt"
	"time"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/structs"
)

// restartVerdict is what the restart tracker decides about a run that
// ended.
type restartVerdict int

const (
	// restartTask: run the task again after the decision's delay.
	restartTask restartVerdict = iota
	// taskComplete: the task finished its work; it is dead, not failed.
	taskComplete
	// taskFailed: the task is dead and failed.
	taskFailed
)

// restartDecision is the tracker's answer for one ended run.
type restartDecision struct {
	Verdict restartVerdict
	Delay   time.Duration
	Reason  string
}

// Reasons the tracker gives in Restarting and Not Restarting events.
const (
	reasonWithinPolicy   = "Restart within policy"
	reasonUnrecoverable  = "Error was unrecoverable"
	reasonDelayExhausted = "Exceeded allowed attempts, applying a delay"
)

// restartTracker applies a task's restart policy: at most Attempts
// restarts within each Interval, Delay apart; once they are used up, mode
// "fail" fails the task and mode "delay" waits for the interval to end.
//
// The interval window opens at the first restart and is reopened by the
// first restart after it has closed.
type restartTracker struct {
	policy structs.RestartPolicy
	// batch tasks are done once they exit successfully; other tasks are
	// meant to keep running, so a clean exit is restarted like a failure.
	batch bool

	count       int
	windowStart time.Time
}

func newRestartTracker(policy *structs.RestartPolicy, jobType string) *restartTracker {
	t := &restartTracker{batch: jobType == structs.JobTypeBatch || jobType == structs.JobTypeSysbatch}
	if policy != nil {
		t.policy = *policy
	}
	return t
}

// setPolicy switches to a new policy (an in-place job update) keeping the
// restarts already counted.
func (t *restartTracker) setPolicy(policy *structs.RestartPolicy) {
	if policy != nil {
		t.policy = *policy
	}
}

// restore sets the count and window persisted by an earlier agent.
func (t *restartTracker) restore(count int, windowStartUnixNano int64) {
	t.count = count
	if windowStartUnixNano != 0 {
		t.windowStart = time.Unix(0, windowStartUnixNano)
	}
}

// persisted returns what restore needs.
func (t *restartTracker) persisted() (count int, windowStartUnixNano int64) {
	if t.windowStart.IsZero() {
		return t.count, 0
	}
	return t.count, t.windowStart.UnixNano()
}

// onExit decides about a run that ended with res at now.
func (t *restartTracker) onExit(res *drivers.ExitResult, now time.Time) restartDecision {
	if res.Successful() && t.batch {
		return restartDecision{Verdict: taskComplete}
	}
	return t.attempt(now)
}

// onStartError decides about a run that could not start.
func (t *restartTracker) onStartError(err error, now time.Time) restartDecision {
	if !drivers.IsRecoverable(err) {
		return restartDecision{Verdict: taskFailed, Reason: reasonUnrecoverable}
	}
	return t.attempt(now)
}

// attempt counts one restart against the policy.
func (t *restartTracker) attempt(now time.Time) restartDecision {
	if t.windowStart.IsZero() || !now.Before(t.windowStart.Add(t.policy.Interval)) {
		t.count = 0
		t.windowStart = now
	}
	t.count++
	if t.count <= t.policy.Attempts {
		return restartDecision{Verdict: restartTask, Delay: t.policy.Delay, Reason: reasonWithinPolicy}
	}
	if t.policy.Mode == structs.RestartPolicyModeDelay {
		// Wait out the window, then start counting afresh.
		delay := max(t.windowStart.Add(t.policy.Interval).Sub(now), t.policy.Delay)
		t.count = 0
		t.windowStart = time.Time{}
		return restartDecision{Verdict: restartTask, Delay: delay, Reason: reasonDelayExhausted}
	}
	return restartDecision{
		Verdict: taskFailed,
		Reason:  fmt.Sprintf("Exceeded allowed attempts %d in interval %s and mode is %q", t.policy.Attempts, t.policy.Interval, structs.RestartPolicyModeFail),
	}
}

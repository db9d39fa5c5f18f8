package taskrunner

import (
	"errors"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/structs"
)

func TestRestartTracker(t *testing.T) {
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	failPolicy := &structs.RestartPolicy{Attempts: 2, Interval: 10 * time.Minute, Delay: 15 * time.Second, Mode: structs.RestartPolicyModeFail}
	delayPolicy := &structs.RestartPolicy{Attempts: 2, Interval: 10 * time.Minute, Delay: 15 * time.Second, Mode: structs.RestartPolicyModeDelay}
	failed := &drivers.ExitResult{ExitCode: 1}
	success := &drivers.ExitResult{}

	// step is one ended run: an exit result or a start error, at an offset
	// from t0, and the decision expected.
	type step struct {
		at       time.Duration
		exit     *drivers.ExitResult
		startErr error
		want     restartVerdict
		delay    time.Duration
	}
	cases := []struct {
		name    string
		policy  *structs.RestartPolicy
		jobType string
		steps   []step
	}{
		{
			name: "batch success is not restarted", policy: failPolicy, jobType: structs.JobTypeBatch,
			steps: []step{{exit: success, want: taskComplete}},
		},
		{
			name: "sysbatch success is not restarted", policy: failPolicy, jobType: structs.JobTypeSysbatch,
			steps: []step{{exit: success, want: taskComplete}},
		},
		{
			name: "service success is restarted", policy: failPolicy, jobType: structs.JobTypeService,
			steps: []step{{exit: success, want: restartTask, delay: 15 * time.Second}},
		},
		{
			name: "killed by a signal is a failure", policy: failPolicy, jobType: structs.JobTypeBatch,
			steps: []step{{exit: &drivers.ExitResult{Signal: 9, ExitCode: 137}, want: restartTask, delay: 15 * time.Second}},
		},
		{
			name: "exit without a known result is a failure", policy: failPolicy, jobType: structs.JobTypeBatch,
			steps: []step{{exit: &drivers.ExitResult{Err: errors.New("lost")}, want: restartTask, delay: 15 * time.Second}},
		},
		{
			name: "mode fail: attempts within interval, then fail", policy: failPolicy, jobType: structs.JobTypeBatch,
			steps: []step{
				{at: 0, exit: failed, want: restartTask, delay: 15 * time.Second},
				{at: time.Minute, exit: failed, want: restartTask, delay: 15 * time.Second},
				{at: 2 * time.Minute, exit: failed, want: taskFailed},
			},
		},
		{
			name: "a new interval brings new attempts", policy: failPolicy, jobType: structs.JobTypeBatch,
			steps: []step{
				{at: 0, exit: failed, want: restartTask, delay: 15 * time.Second},
				{at: time.Minute, exit: failed, want: restartTask, delay: 15 * time.Second},
				{at: 10 * time.Minute, exit: failed, want: restartTask, delay: 15 * time.Second},
				{at: 11 * time.Minute, exit: failed, want: restartTask, delay: 15 * time.Second},
				{at: 12 * time.Minute, exit: failed, want: taskFailed},
			},
		},
		{
			name: "mode delay waits for the interval to end", policy: delayPolicy, jobType: structs.JobTypeBatch,
			steps: []step{
				{at: 0, exit: failed, want: restartTask, delay: 15 * time.Second},
				{at: time.Minute, exit: failed, want: restartTask, delay: 15 * time.Second},
				{at: 4 * time.Minute, exit: failed, want: restartTask, delay: 6 * time.Minute},
				// After the delay the count starts again.
				{at: 11 * time.Minute, exit: failed, want: restartTask, delay: 15 * time.Second},
				{at: 12 * time.Minute, exit: failed, want: restartTask, delay: 15 * time.Second},
				{at: 13 * time.Minute, exit: failed, want: restartTask, delay: 8 * time.Minute},
			},
		},
		{
			name: "mode delay never waits less than the delay", jobType: structs.JobTypeBatch,
			policy: &structs.RestartPolicy{Attempts: 1, Interval: time.Minute, Delay: 30 * time.Second, Mode: structs.RestartPolicyModeDelay},
			steps: []step{
				{at: 0, exit: failed, want: restartTask, delay: 30 * time.Second},
				{at: 50 * time.Second, exit: failed, want: restartTask, delay: 30 * time.Second},
			},
		},
		{
			name: "zero attempts fails at once", jobType: structs.JobTypeService,
			policy: &structs.RestartPolicy{Attempts: 0, Interval: time.Minute, Delay: time.Second, Mode: structs.RestartPolicyModeFail},
			steps:  []step{{exit: failed, want: taskFailed}},
		},
		{
			name: "unrecoverable start error fails at once", policy: failPolicy, jobType: structs.JobTypeBatch,
			steps: []step{{startErr: errors.New("bad config"), want: taskFailed}},
		},
		{
			name: "recoverable start error counts as an attempt", policy: failPolicy, jobType: structs.JobTypeBatch,
			steps: []step{
				{at: 0, startErr: drivers.NewRecoverableError(errors.New("busy"), true), want: restartTask, delay: 15 * time.Second},
				{at: time.Minute, startErr: drivers.NewRecoverableError(errors.New("busy"), true), want: restartTask, delay: 15 * time.Second},
				{at: 2 * time.Minute, startErr: drivers.NewRecoverableError(errors.New("busy"), true), want: taskFailed},
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tracker := newRestartTracker(c.policy, c.jobType)
			for i, s := range c.steps {
				var got restartDecision
				if s.startErr != nil {
					got = tracker.onStartError(s.startErr, t0.Add(s.at))
				} else {
					got = tracker.onExit(s.exit, t0.Add(s.at))
				}
				must.Eq(t, s.want, got.Verdict, must.Sprintf("step %d", i))
				must.Eq(t, s.delay, got.Delay, must.Sprintf("step %d", i))
				if got.Verdict != taskComplete {
					must.NotEq(t, "", got.Reason, must.Sprintf("step %d", i))
				}
			}
		})
	}
}

func TestRestartTracker_RestoreKeepsTheCount(t *testing.T) {
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	policy := &structs.RestartPolicy{Attempts: 1, Interval: time.Hour, Delay: time.Second, Mode: structs.RestartPolicyModeFail}
	first := newRestartTracker(policy, structs.JobTypeBatch)
	must.Eq(t, restartTask, first.onExit(&drivers.ExitResult{ExitCode: 1}, t0).Verdict)

	count, start := first.persisted()
	second := newRestartTracker(policy, structs.JobTypeBatch)
	second.restore(count, start)
	must.Eq(t, taskFailed, second.onExit(&drivers.ExitResult{ExitCode: 1}, t0.Add(time.Minute)).Verdict)
}

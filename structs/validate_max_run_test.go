package structs

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

// TestValidate_maxRunExtensions holds the rules of Drover's additions
// around max_run_duration: each valid case passes, each invalid one fails
// with exactly the problems listed.
func TestValidate_maxRunExtensions(t *testing.T) {
	cases := []struct {
		name    string
		jobType string
		mutate  func(j *Job)
		want    []string
	}{
		{name: "task limit on batch", jobType: "batch", mutate: func(j *Job) { task(j).MaxRunDuration = new(time.Minute) }},
		{name: "task limit on sysbatch", jobType: "sysbatch", mutate: func(j *Job) { task(j).MaxRunDuration = new(time.Minute) }},
		{name: "task and group limits", jobType: "batch", mutate: func(j *Job) {
			task(j).MaxRunDuration = new(time.Minute)
			group(j).MaxRunDuration = new(time.Hour)
		}},
		{name: "task limit 0s", jobType: "batch", mutate: func(j *Job) { task(j).MaxRunDuration = new(time.Duration(0)) },
			want: []string{`Task group "g" task "t": max_run_duration must be greater than zero, got 0s`}},
		{name: "task limit -1s", jobType: "batch", mutate: func(j *Job) { task(j).MaxRunDuration = new(-time.Second) },
			want: []string{`Task group "g" task "t": max_run_duration must be greater than zero, got -1s`}},
		{name: "task limit on service", jobType: "service", mutate: func(j *Job) { task(j).MaxRunDuration = new(time.Minute) },
			want: []string{`Task group "g" task "t": Job type "service" does not allow max_run_duration`}},
		{name: "task limit on system, second task", jobType: "system", mutate: func(j *Job) { addTask(j, "u").MaxRunDuration = new(time.Minute) },
			want: []string{`Task group "g" task "u": Job type "system" does not allow max_run_duration`}},

		// max_run_outcome.
		{name: "outcome failed", jobType: "batch", mutate: func(j *Job) {
			group(j).MaxRunDuration = new(time.Hour)
			group(j).MaxRunOutcome = MaxRunOutcomeFailed
		}},
		{name: "outcome complete on sysbatch", jobType: "sysbatch", mutate: func(j *Job) { group(j).MaxRunOutcome = MaxRunOutcomeComplete }},
		{name: "outcome unknown", jobType: "batch", mutate: func(j *Job) { group(j).MaxRunOutcome = "lost" },
			want: []string{`Task group "g": max_run_outcome must be "complete" or "failed", got "lost"`}},
		{name: "outcome on service", jobType: "service", mutate: func(j *Job) { group(j).MaxRunOutcome = MaxRunOutcomeFailed },
			want: []string{`Task group "g": Job type "service" does not allow max_run_outcome`}},

		// max_run_warning.
		{name: "warning of the task's limit", jobType: "batch", mutate: func(j *Job) {
			task(j).MaxRunDuration = new(time.Hour)
			task(j).MaxRunWarning = &MaxRunWarning{Signal: "SIGUSR1", Before: 5 * time.Minute}
		}},
		{name: "warning of the group's limit, any spelling", jobType: "sysbatch", mutate: func(j *Job) {
			group(j).MaxRunDuration = new(time.Hour)
			task(j).MaxRunWarning = &MaxRunWarning{Signal: "usr2", Before: time.Minute}
		}},
		{name: "warning without a signal", jobType: "batch", mutate: func(j *Job) {
			group(j).MaxRunDuration = new(time.Hour)
			task(j).MaxRunWarning = &MaxRunWarning{Before: time.Minute}
		}, want: []string{`Task group "g" task "t": max_run_warning needs a signal`}},
		{name: "warning with an unknown signal", jobType: "batch", mutate: func(j *Job) {
			group(j).MaxRunDuration = new(time.Hour)
			task(j).MaxRunWarning = &MaxRunWarning{Signal: "SIGCHECKPOINT", Before: time.Minute}
		}, want: []string{`Task group "g" task "t": max_run_warning signal "SIGCHECKPOINT" is not a known signal`}},
		{name: "warning with SIGKILL", jobType: "batch", mutate: func(j *Job) {
			group(j).MaxRunDuration = new(time.Hour)
			task(j).MaxRunWarning = &MaxRunWarning{Signal: "SIGKILL", Before: time.Minute}
		}, want: []string{`Task group "g" task "t": max_run_warning signal "SIGKILL" cannot be trapped by the task`}},
		{name: "warning with no lead time", jobType: "batch", mutate: func(j *Job) {
			group(j).MaxRunDuration = new(time.Hour)
			task(j).MaxRunWarning = &MaxRunWarning{Signal: "SIGUSR1"}
		}, want: []string{`Task group "g" task "t": max_run_warning before must be greater than zero, got 0s`}},
		{name: "warning as long as the shortest limit", jobType: "batch", mutate: func(j *Job) {
			group(j).MaxRunDuration = new(time.Hour)
			task(j).MaxRunDuration = new(10 * time.Minute)
			task(j).MaxRunWarning = &MaxRunWarning{Signal: "SIGUSR1", Before: 10 * time.Minute}
		}, want: []string{`Task group "g" task "t": max_run_warning before 10m0s must be shorter than the max_run_duration it warns of, 10m0s`}},
		{name: "warning without a limit", jobType: "batch", mutate: func(j *Job) {
			task(j).MaxRunWarning = &MaxRunWarning{Signal: "SIGUSR1", Before: time.Minute}
		}, want: []string{`Task group "g" task "t": max_run_warning needs a max_run_duration on the task or its group`}},
		{name: "warning on service", jobType: "service", mutate: func(j *Job) {
			task(j).MaxRunWarning = &MaxRunWarning{Signal: "SIGUSR1", Before: time.Minute}
		}, want: []string{`Task group "g" task "t": Job type "service" does not allow max_run_warning`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := validJob(tc.jobType)
			tc.mutate(j)
			mustProblems(t, tc.want, j.Validate())
		})
	}
}

func TestJob_Warnings(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(j *Job)
		want   []string
	}{
		{name: "none"},
		{name: "task limit within the group's", mutate: func(j *Job) {
			group(j).MaxRunDuration = new(time.Hour)
			task(j).MaxRunDuration = new(time.Hour)
		}},
		{name: "task limit without a group limit", mutate: func(j *Job) { task(j).MaxRunDuration = new(time.Hour) }},
		{name: "task limit longer than the group's", mutate: func(j *Job) {
			group(j).MaxRunDuration = new(10 * time.Minute)
			addTask(j, "long").MaxRunDuration = new(20 * time.Minute)
		}, want: []string{`Task group "g" task "long": max_run_duration 20m0s is longer than the group's 10m0s, whose deadline comes first`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := validJob("batch")
			if tc.mutate != nil {
				tc.mutate(j)
			}
			must.NoError(t, j.Validate())
			must.Eq(t, tc.want, j.Warnings())
		})
	}
}

package structs

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

// TestValidate_waitLimits holds the rules of max_pending_duration and
// max_run_extension, on the job (a default that canonicalisation copies
// into the groups) and on a group.
func TestValidate_waitLimits(t *testing.T) {
	cases := []struct {
		name    string
		jobType string
		mutate  func(j *Job)
		want    []string
	}{
		{name: "group pending on batch", jobType: "batch", mutate: func(j *Job) { group(j).MaxPendingDuration = new(time.Minute) }},
		{name: "job both on batch", jobType: "batch", mutate: func(j *Job) {
			j.MaxPendingDuration = new(time.Minute)
			j.MaxRunExtension = new(time.Minute)
		}},
		{name: "extension on sysbatch", jobType: "sysbatch", mutate: func(j *Job) { j.MaxRunExtension = new(time.Minute) }},
		{name: "pending on sysbatch", jobType: "sysbatch", mutate: func(j *Job) { group(j).MaxPendingDuration = new(time.Minute) },
			want: []string{`Task group "g": Job type "sysbatch" does not allow max_pending_duration`}},
		{name: "group pending 0s", jobType: "batch", mutate: func(j *Job) { group(j).MaxPendingDuration = new(time.Duration(0)) },
			want: []string{`Task group "g": max_pending_duration must be greater than zero, got 0s`}},
		{name: "group extension negative", jobType: "batch", mutate: func(j *Job) { group(j).MaxRunExtension = new(-time.Second) },
			want: []string{`Task group "g": max_run_extension must be greater than zero, got -1s`}},
		{name: "group extension past 100 years", jobType: "batch", mutate: func(j *Job) { group(j).MaxRunExtension = new(MaxJobDuration + 1) },
			want: []string{`Task group "g": max_run_extension must be at most 876000h0m0s (100 years), got 876000h0m0.000000001s`}},
		{name: "job pending on service, reported once", jobType: "service", mutate: func(j *Job) { j.MaxPendingDuration = new(time.Minute) },
			want: []string{`Job type "service" does not allow max_pending_duration`}},
		{name: "group extension on system", jobType: "system", mutate: func(j *Job) { group(j).MaxRunExtension = new(time.Minute) },
			want: []string{`Task group "g": Job type "system" does not allow max_run_extension`}},
		{name: "group overrides an invalid job default", jobType: "batch", mutate: func(j *Job) {
			j.MaxPendingDuration = new(time.Duration(0))
			group(j).MaxPendingDuration = new(time.Minute)
		}, want: []string{`max_pending_duration must be greater than zero, got 0s`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := validJob(tc.jobType)
			tc.mutate(j)
			j.Canonicalize()
			mustProblems(t, tc.want, j.Validate())
		})
	}
}

// TestCanonicalize_waitLimits: the job's values are the default of every
// group that has none of its own.
func TestCanonicalize_waitLimits(t *testing.T) {
	j := validJob("batch")
	j.MaxPendingDuration = new(time.Minute)
	j.MaxRunExtension = new(time.Hour)
	own := &TaskGroup{Name: "own", MaxPendingDuration: new(time.Second), MaxRunExtension: new(2 * time.Second)}
	j.TaskGroups = append(j.TaskGroups, own)
	j.Canonicalize()
	must.Eq(t, time.Minute, *group(j).MaxPendingDuration)
	must.Eq(t, time.Hour, group(j).MaxRunExtensionLimit())
	must.Eq(t, time.Second, *own.MaxPendingDuration)
	must.Eq(t, 2*time.Second, own.MaxRunExtensionLimit())
	*j.MaxPendingDuration = 0
	must.Eq(t, time.Minute, *group(j).MaxPendingDuration, must.Sprint("a copy, not the job's pointer"))
}

package structs

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

func limitMessages(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var verr *ValidationError
	must.True(t, errors.As(err, &verr), must.Sprintf("want a *ValidationError, got %v", err))
	return messages(verr)
}

func TestCheckLimits(t *testing.T) {
	small := JobLimits{MaxCount: 10, MaxGroups: 2, MaxTasksPerGroup: 2, MaxSize: 1 << 20}
	cases := []struct {
		name   string
		limits JobLimits
		mutate func(j *Job)
		want   []string
	}{
		{name: "within every limit", limits: small, mutate: func(j *Job) { group(j).Count = 10 }},
		{name: "count of one group", limits: small, mutate: func(j *Job) { group(j).Count = 1_000_000_000 },
			want: []string{`Task group "g": count 1000000000 is more than the limit of 10 allocations per job (limits.job_max_count)`}},
		{name: "counts summed", limits: small, mutate: func(j *Job) {
			group(j).Count = 6
			g2 := group(j).Copy()
			g2.Name, g2.Count = "g2", 5
			j.TaskGroups = append(j.TaskGroups, g2)
		}, want: []string{`Job's groups ask for 11 allocations in all (the sum of their counts), more than the limit of 10 (limits.job_max_count)`}},
		{name: "counts whose sum overflows int", limits: small, mutate: func(j *Job) {
			group(j).Count = math.MaxInt
			g2 := group(j).Copy()
			g2.Name = "g2"
			j.TaskGroups = append(j.TaskGroups, g2)
		}, want: []string{
			`Task group "g": count 9223372036854775807 is more than the limit of 10 allocations per job (limits.job_max_count)`,
			`Task group "g2": count 9223372036854775807 is more than the limit of 10 allocations per job (limits.job_max_count)`,
		}},
		{name: "groups", limits: small, mutate: func(j *Job) {
			for _, name := range []string{"g2", "g3"} {
				g := group(j).Copy()
				g.Name, g.Count = name, 1
				j.TaskGroups = append(j.TaskGroups, g)
			}
			group(j).Count = 1
		}, want: []string{"Job has 3 task groups, more than the limit of 2 (limits.job_max_groups)"}},
		{name: "tasks", limits: small, mutate: func(j *Job) {
			for _, name := range []string{"t2", "t3"} {
				tk := *task(j)
				tk.Name = name
				group(j).Tasks = append(group(j).Tasks, &tk)
			}
		}, want: []string{`Task group "g": Group has 3 tasks, more than the limit of 2 (limits.job_max_tasks_per_group)`}},
		{name: "size", limits: JobLimits{MaxSize: 4096}, mutate: func(j *Job) {
			j.Meta = map[string]string{"big": strings.Repeat("x", 5000)}
		}, want: []string{"sized below"}},
		{name: "zero limits check nothing", mutate: func(j *Job) { group(j).Count = math.MaxInt }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := validJob("batch")
			tc.mutate(j)
			got := limitMessages(t, j.CheckLimits(tc.limits))
			if tc.name == "size" {
				data, err := json.Marshal(j)
				must.NoError(t, err)
				tc.want = []string{fmt.Sprintf("Job is %d bytes as JSON, more than the limit of 4096 bytes (limits.job_max_size)", len(data))}
			}
			must.Eq(t, tc.want, got)
		})
	}
}

func TestCheckCountLimits_ignoresSize(t *testing.T) {
	j := validJob("batch")
	j.Meta = map[string]string{"big": strings.Repeat("x", 5000)}
	must.NoError(t, j.CheckCountLimits(JobLimits{MaxCount: 1, MaxSize: 10}))
	group(j).Count = 2
	must.ErrorContains(t, j.CheckCountLimits(JobLimits{MaxCount: 1}), "limits.job_max_count")
}

func TestValidate_durations(t *testing.T) {
	huge := time.Duration(math.MaxInt64)
	cases := []struct {
		name   string
		mutate func(j *Job)
		want   string
	}{
		{"max_run_duration near int64 max", func(j *Job) { group(j).MaxRunDuration = &huge },
			`Task group "g": max_run_duration must be at most 876000h0m0s (100 years), got 2562047h47m16.854775807s`},
		{"group shutdown_delay", func(j *Job) { d := MaxJobDuration + 1; group(j).ShutdownDelay = &d },
			`Task group "g": shutdown_delay must be at most 876000h0m0s (100 years), got 876000h0m0.000000001s`},
		{"kill_timeout", func(j *Job) { task(j).KillTimeout = huge },
			`Task group "g" task "t": kill_timeout must be at most 876000h0m0s (100 years), got 2562047h47m16.854775807s`},
		{"task shutdown_delay", func(j *Job) { task(j).ShutdownDelay = huge },
			`Task group "g" task "t": shutdown_delay must be at most 876000h0m0s (100 years), got 2562047h47m16.854775807s`},
		{"restart delay", func(j *Job) { group(j).RestartPolicy.Delay = huge; group(j).RestartPolicy.Interval = huge },
			`Task group "g": restart interval must be at most 876000h0m0s (100 years), got 2562047h47m16.854775807s`},
		{"reschedule max_delay", func(j *Job) { group(j).ReschedulePolicy.MaxDelay = huge },
			`Task group "g": reschedule max_delay must be at most 876000h0m0s (100 years), got 2562047h47m16.854775807s`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := validJob("batch")
			tc.mutate(j)
			must.SliceContains(t, limitMessages(t, j.Validate()), tc.want)
		})
	}

	t.Run("the longest allowed max_run_duration still has a deadline", func(t *testing.T) {
		j := validJob("batch")
		d := MaxJobDuration
		group(j).MaxRunDuration = &d
		must.NoError(t, j.Validate())
		// Allocations created up to the year 2162 get a real deadline.
		created := time.Date(2162, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
		alloc := &Allocation{Job: j, TaskGroup: "g", CreateTime: created}
		m := alloc.MaxRun()
		must.True(t, m.HasDeadline())
		must.True(t, m.Deadline.After(time.Unix(0, created)))
	})
}

func TestValidate_restartProductDoesNotOverflow(t *testing.T) {
	j := validJob("batch")
	rp := group(j).RestartPolicy
	// 2^33 attempts × 2^31 ns overflows int64 to 0: the product must not
	// be computed.
	rp.Attempts, rp.Delay, rp.Interval = 1<<33, 1<<31, time.Hour
	must.SliceContains(t, limitMessages(t, j.Validate()),
		`Task group "g": restart attempts (8589934592) times delay (2.147483648s) must fit in interval (1h0m0s)`)
}

func TestNonPrintable(t *testing.T) {
	for s, want := range map[string]string{
		"":              "",
		"web-1.api_v2":  "",
		"tâche é 日本":    "",
		"a\x1bb":        "U+001B at byte 2",
		"\x00":          "U+0000 at byte 1",
		"ok\u00a0":      "U+00A0 at byte 3",
		"\u200b":        "U+200B at byte 1",
		"bad\xc3":       "invalid UTF-8 at byte 4",
		"\uFFFD is one": "", // the replacement character itself is printable
	} {
		must.Eq(t, want, NonPrintable(s), must.Sprintf("%q", s))
	}
}

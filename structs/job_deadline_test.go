package structs

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

// jobBudgetAlloc is an allocation of batch job "j" submitted at submit
// with job budget jobBudget, group "g" budget groupBudget (zero: none),
// created at created (zero: not placed).
func jobBudgetAlloc(submit, created time.Time, jobBudget, groupBudget time.Duration) *Allocation {
	job := &Job{ID: "j", Type: JobTypeBatch, TaskGroups: []*TaskGroup{{Name: "g"}}}
	if !submit.IsZero() {
		job.SubmitTime = submit.UnixNano()
	}
	if jobBudget != 0 {
		job.MaxRunDuration = &jobBudget
	}
	if groupBudget != 0 {
		job.TaskGroups[0].MaxRunDuration = &groupBudget
	}
	a := &Allocation{ID: "a", TaskGroup: "g", Job: job}
	if !created.IsZero() {
		a.CreateTime = created.UnixNano()
	}
	return a
}

func TestAllocation_MaxRun_jobAndDeadlineScopes(t *testing.T) {
	submit := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return submit.Add(d) }

	t.Run("job budget comes first", func(t *testing.T) {
		// A replacement created 50m into a 1h job budget gets 10m, not
		// its group's 30m.
		a := jobBudgetAlloc(submit, at(50*time.Minute), time.Hour, 30*time.Minute)
		must.Eq(t, MaxRun{Scope: MaxRunScopeJob, Budget: time.Hour, Anchor: submit, Deadline: at(time.Hour)}, a.MaxRun())
		must.Eq(t, 10*time.Minute, a.MaxRun().Remaining(at(50*time.Minute)))
	})
	t.Run("group budget comes first", func(t *testing.T) {
		a := jobBudgetAlloc(submit, at(time.Minute), time.Hour, 30*time.Minute)
		must.Eq(t, MaxRunScopeGroup, a.MaxRun().Scope)
		must.Eq(t, at(31*time.Minute), a.MaxRun().Deadline)
	})
	t.Run("tie: the allocation's own budget", func(t *testing.T) {
		a := jobBudgetAlloc(submit, at(30*time.Minute), time.Hour, 30*time.Minute)
		must.Eq(t, MaxRunScopeGroup, a.MaxRun().Scope)
		must.Eq(t, at(time.Hour), a.MaxRun().Deadline)
	})
	t.Run("job budget only", func(t *testing.T) {
		a := jobBudgetAlloc(submit, at(time.Minute), time.Hour, 0)
		must.Eq(t, MaxRunScopeJob, a.MaxRun().Scope)
	})
	t.Run("not placed: the job's deadline is known", func(t *testing.T) {
		a := jobBudgetAlloc(submit, time.Time{}, time.Hour, 30*time.Minute)
		must.Eq(t, MaxRun{Scope: MaxRunScopeJob, Budget: time.Hour, Anchor: submit, Deadline: at(time.Hour)}, a.MaxRun())
	})
	t.Run("job not submitted: budgets without deadline", func(t *testing.T) {
		a := jobBudgetAlloc(time.Time{}, time.Time{}, time.Hour, 30*time.Minute)
		must.Eq(t, MaxRun{Scope: MaxRunScopeGroup, Budget: 30 * time.Minute}, a.MaxRun())
	})
	t.Run("job budget on a service job: none", func(t *testing.T) {
		a := jobBudgetAlloc(submit, at(time.Minute), time.Hour, 0)
		a.Job.Type = JobTypeService
		must.Eq(t, MaxRun{}, a.MaxRun())
	})
	t.Run("override does not lift the job budget", func(t *testing.T) {
		a := jobBudgetAlloc(submit, at(time.Minute), time.Hour, 30*time.Minute)
		a.MaxRunOverride = &MaxRunOverride{Budget: 2 * time.Hour, Replaces: 30 * time.Minute}
		must.Eq(t, MaxRunScopeJob, a.MaxRun().Scope)
		a.MaxRunOverride.Budget = 20 * time.Minute
		must.Eq(t, MaxRunScopeAllocation, a.MaxRun().Scope)
	})
	t.Run("finish-by deadline cuts", func(t *testing.T) {
		a := jobBudgetAlloc(submit, at(time.Minute), 0, 30*time.Minute)
		a.Job.Deadline = &JobDeadline{At: at(11 * time.Minute).UnixNano()}
		must.Eq(t, MaxRun{Scope: MaxRunScopeDeadline, Budget: 10 * time.Minute, Anchor: at(time.Minute), Deadline: at(11 * time.Minute)}, a.MaxRun())
	})
	t.Run("finish-by after the budget: the budget", func(t *testing.T) {
		a := jobBudgetAlloc(submit, at(time.Minute), 0, 30*time.Minute)
		a.Job.Deadline = &JobDeadline{At: at(31 * time.Minute).UnixNano()}
		must.Eq(t, MaxRunScopeGroup, a.MaxRun().Scope, must.Sprint("a tie goes to the group"))
	})
	t.Run("created past the finish-by: deadline passed, no budget left", func(t *testing.T) {
		a := jobBudgetAlloc(submit, at(time.Hour), 0, 0)
		a.Job.Deadline = &JobDeadline{At: at(time.Minute).UnixNano()}
		m := a.MaxRun()
		must.Eq(t, MaxRunScopeDeadline, m.Scope)
		must.Eq(t, 0, m.Budget)
		must.True(t, m.Passed(at(time.Hour)))
	})
	t.Run("task meets the job deadline", func(t *testing.T) {
		a := jobBudgetAlloc(submit, at(50*time.Minute), time.Hour, 0)
		five := 30 * time.Minute
		a.Job.TaskGroups[0].Tasks = []*Task{{Name: "t", MaxRunDuration: &five}}
		a.TaskStates = map[string]*TaskState{"t": {RunnerStartedAt: at(50 * time.Minute)}}
		must.Eq(t, MaxRunScopeJob, a.TaskDeadline("t").Scope)
		must.Eq(t, at(time.Hour), a.TaskDeadline("t").Deadline)
	})
}

func TestJob_PlaceAt(t *testing.T) {
	now := time.Date(2026, 12, 7, 22, 0, 0, 0, time.UTC)
	dur := func(d time.Duration) *time.Duration { return &d }
	job := func(mutate func(j *Job)) *Job {
		j := &Job{ID: "j", Type: JobTypeBatch, SubmitTime: now.Add(-time.Hour).UnixNano(),
			TaskGroups: []*TaskGroup{{Name: "g", MaxRunDuration: dur(30 * time.Minute)}}}
		mutate(j)
		return j
	}
	finishBy := func(d time.Duration) *JobDeadline { return &JobDeadline{At: now.Add(d).UnixNano()} }
	cases := []struct {
		name      string
		job       *Job
		giveUp    string
		scope     MaxRunScope
		remaining time.Duration
	}{
		{name: "no limits", job: job(func(*Job) {}), scope: MaxRunScopeGroup, remaining: 30 * time.Minute},
		{name: "job budget left: inherits what is left", job: job(func(j *Job) { j.MaxRunDuration = dur(70 * time.Minute) }),
			scope: MaxRunScopeJob, remaining: 10 * time.Minute},
		{name: "job budget spent", job: job(func(j *Job) { j.MaxRunDuration = dur(time.Hour) }),
			giveUp: "job max_run_duration spent", scope: MaxRunScopeJob},
		{name: "job budget left below min_run_duration", job: job(func(j *Job) {
			j.MaxRunDuration = dur(65 * time.Minute)
			j.TaskGroups[0].MinRunDuration = dur(10 * time.Minute)
		}), giveUp: "job max_run_duration has 5m0s left, less than min_run_duration 10m0s", scope: MaxRunScopeJob, remaining: 5 * time.Minute},
		{name: "budget ends by the deadline", job: job(func(j *Job) { j.Deadline = finishBy(30 * time.Minute) }),
			scope: MaxRunScopeGroup, remaining: 30 * time.Minute},
		{name: "budget ends after the deadline", job: job(func(j *Job) { j.Deadline = finishBy(30*time.Minute - 1) }),
			giveUp: "cannot finish by 2026-12-07T22:29:59.999999999Z", scope: MaxRunScopeDeadline, remaining: 30*time.Minute - 1},
		{name: "no budget never finishes", job: job(func(j *Job) {
			j.TaskGroups[0].MaxRunDuration = nil
			j.Deadline = finishBy(time.Hour)
		}), giveUp: "cannot finish by 2026-12-07T23:00:00Z", scope: MaxRunScopeDeadline, remaining: time.Hour},
		{name: "min_run_duration fits: cut to the deadline", job: job(func(j *Job) {
			j.Deadline = finishBy(10 * time.Minute)
			j.TaskGroups[0].MinRunDuration = dur(10 * time.Minute)
		}), scope: MaxRunScopeDeadline, remaining: 10 * time.Minute},
		{name: "min_run_duration does not fit", job: job(func(j *Job) {
			j.Deadline = finishBy(10*time.Minute - 1)
			j.TaskGroups[0].MinRunDuration = dur(10 * time.Minute)
		}), giveUp: "cannot finish by 2026-12-07T22:09:59.999999999Z", scope: MaxRunScopeDeadline, remaining: 10*time.Minute - 1},
		{name: "deadline passed", job: job(func(j *Job) { j.Deadline = finishBy(-time.Second) }),
			giveUp: "cannot finish by 2026-12-07T21:59:59Z", scope: MaxRunScopeDeadline},
		{name: "job budget cuts before the deadline", job: job(func(j *Job) {
			j.TaskGroups[0].MaxRunDuration = nil
			j.MaxRunDuration = dur(70 * time.Minute)
			j.Deadline = finishBy(time.Hour)
		}), scope: MaxRunScopeJob, remaining: 10 * time.Minute},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.job.PlaceAt(tc.job.TaskGroups[0], now)
			must.Eq(t, tc.giveUp, p.GiveUp)
			must.Eq(t, tc.scope, p.MaxRun.Scope)
			must.Eq(t, tc.remaining, p.MaxRun.Remaining(now))
		})
	}
}

func TestJob_ResolveLaunchDeadline(t *testing.T) {
	launched := time.Date(2026, 12, 7, 6, 0, 0, 0, time.UTC).UnixNano()
	j := &Job{Deadline: &JobDeadline{AfterLaunch: 2 * time.Hour}}
	j.ResolveLaunchDeadline(launched)
	must.Eq(t, &JobDeadline{At: launched + int64(2*time.Hour)}, j.Deadline)

	instant := &Job{Deadline: &JobDeadline{At: 42}}
	instant.ResolveLaunchDeadline(launched)
	must.Eq(t, &JobDeadline{At: 42}, instant.Deadline)

	periodic := &Job{Periodic: &PeriodicConfig{Enabled: true}, Deadline: &JobDeadline{AfterLaunch: time.Hour}}
	periodic.ResolveLaunchDeadline(launched)
	must.Eq(t, &JobDeadline{AfterLaunch: time.Hour}, periodic.Deadline, must.Sprint("a child that launches children resolves at its own launches"))
}

func TestJob_ValidateJobDeadlines(t *testing.T) {
	dur := func(d time.Duration) *time.Duration { return &d }
	cases := []struct {
		name    string
		service bool
		mutate  func(j *Job)
		want    []string
	}{
		{name: "valid", mutate: func(j *Job) {
			j.MaxRunDuration = dur(time.Hour)
			j.Deadline = &JobDeadline{At: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()}
			j.TaskGroups[0].MinRunDuration = dur(time.Minute)
		}},
		{name: "job budget not positive", mutate: func(j *Job) { j.MaxRunDuration = dur(0) },
			want: []string{"Job max_run_duration must be greater than zero, got 0s"}},
		{name: "job budget on a service job", service: true, mutate: func(j *Job) {
			j.MaxRunDuration = dur(time.Hour)
		}, want: []string{`Job type "service" does not allow max_run_duration`}},
		{name: "both instant and duration", mutate: func(j *Job) { j.Deadline = &JobDeadline{At: 1, AfterLaunch: 1} },
			want: []string{"Job deadline must be an instant or a duration after each launch, not both"}},
		{name: "duration on a plain job", mutate: func(j *Job) { j.Deadline = &JobDeadline{AfterLaunch: time.Hour} },
			want: []string{"Job deadline 1h0m0s is a duration, which only a periodic or parameterized job may give"}},
		{name: "instant in seconds", mutate: func(j *Job) { j.Deadline = &JobDeadline{At: 1765000000} },
			want: []string{"Job deadline 1970-01-01T00:00:01Z is before the year 2000: an instant is in Unix nanoseconds"}},
		{name: "empty deadline", mutate: func(j *Job) { j.Deadline = &JobDeadline{} },
			want: []string{"Job deadline must give an instant or a duration after each launch"}},
		{name: "min_run_duration longer than the budget", mutate: func(j *Job) {
			j.TaskGroups[0].MaxRunDuration = dur(time.Minute)
			j.TaskGroups[0].MinRunDuration = dur(time.Hour)
		}, want: []string{`Task group "g": min_run_duration 1h0m0s is longer than the max_run_duration 1m0s that bounds the group`}},
		{name: "min_run_duration not positive", mutate: func(j *Job) { j.TaskGroups[0].MinRunDuration = dur(-1) },
			want: []string{`Task group "g": min_run_duration must be greater than zero, got -1ns`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := validJob(JobTypeBatch)
			if tc.service {
				j = validJob(JobTypeService)
			}
			tc.mutate(j)
			err := j.Validate()
			if len(tc.want) == 0 {
				must.NoError(t, err)
				return
			}
			must.Error(t, err)
			for _, w := range tc.want {
				must.StrContains(t, err.Error(), w)
			}
		})
	}
}

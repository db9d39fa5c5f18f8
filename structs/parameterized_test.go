package structs

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

// parameterizedJob is a valid canonical parameterized batch job.
func parameterizedJob(c *ParameterizedJobConfig) *Job {
	job := &Job{
		ID:               "encode",
		Type:             JobTypeBatch,
		Datacenters:      []string{"dc1"},
		ParameterizedJob: c,
		TaskGroups: []*TaskGroup{{
			Name:  "g",
			Tasks: []*Task{{Name: "t", Driver: "raw_exec", DispatchPayload: &DispatchPayloadConfig{File: "in.json"}}},
		}},
	}
	job.Canonicalize()
	return job
}

func problemsOf(t *testing.T, err error) string {
	t.Helper()
	var v *ValidationError
	must.True(t, errors.As(err, &v), must.Sprintf("%v is not a ValidationError", err))
	return err.Error()
}

func TestParameterized_canonicalAndValid(t *testing.T) {
	job := parameterizedJob(&ParameterizedJobConfig{})
	must.Eq(t, DispatchPayloadOptional, job.ParameterizedJob.Payload)
	must.NoError(t, job.Validate())
	must.True(t, job.IsParameterized())
	must.True(t, job.LaunchesChildren())
	must.False(t, job.LaunchesPeriodically())

	job.Periodic = &PeriodicConfig{Enabled: true, Spec: "* * * * *", SpecType: PeriodicSpecCron, TimeZone: "UTC"}
	must.NoError(t, job.Validate())
	must.False(t, job.LaunchesPeriodically(), must.Sprint("a periodic parameterized job launches nothing until dispatched"))
	job.Dispatched, job.ParentID, job.ID = true, "encode", "encode/dispatch-1-abcdef01"
	must.True(t, job.LaunchesPeriodically(), must.Sprint("its dispatched child is periodic"))
	must.False(t, job.IsParameterized())
}

func TestParameterized_validation(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(*Job)
		wants []string
	}{
		{"service job", func(j *Job) { j.Type = JobTypeService }, []string{`Job parameterized: Job type "service" does not allow parameterized`}},
		{"payload", func(j *Job) { j.ParameterizedJob.Payload = "sometimes" }, []string{`payload must be "optional", "required" or "forbidden", got "sometimes"`}},
		{"meta listed twice", func(j *Job) {
			j.ParameterizedJob.MetaRequired = []string{"a"}
			j.ParameterizedJob.MetaOptional = []string{"a", ""}
		}, []string{`meta key "a" is listed twice (in meta_required and meta_optional)`, "meta_optional has an empty key"}},
		{"max_run_duration_max", func(j *Job) { j.ParameterizedJob.MaxRunDurationMax = new(-time.Second) }, []string{"max_run_duration_max must be greater than zero"}},
		{"payload file escapes", func(j *Job) { j.TaskGroups[0].Tasks[0].DispatchPayload.File = "../../etc/passwd" }, []string{`Task group "g" task "t" dispatch_payload: file "../../etc/passwd" must be a path inside the task's local/ directory`}},
		{"payload file absolute", func(j *Job) { j.TaskGroups[0].Tasks[0].DispatchPayload.File = "/etc/passwd" }, []string{`must be a path inside`}},
		{"payload file missing", func(j *Job) { j.TaskGroups[0].Tasks[0].DispatchPayload.File = "" }, []string{`dispatch_payload: Missing file`}},
		{"payload without a dispatch", func(j *Job) { j.Payload = []byte("x") }, []string{"Only a dispatch sets a job's payload"}},
		{"dispatched without a parent", func(j *Job) { j.Dispatched = true }, []string{"A dispatched job must have a parent"}},
		{"payload too large", func(j *Job) {
			j.Dispatched, j.ParentID, j.ID = true, "encode", "encode/dispatch-1-abcdef01"
			j.Payload = make([]byte, DispatchPayloadSizeLimit+1)
		}, []string{"Payload is 16385 bytes, more than the limit of 16384 (16 KiB)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			job := parameterizedJob(&ParameterizedJobConfig{})
			c.edit(job)
			msg := problemsOf(t, job.Validate())
			for _, want := range c.wants {
				must.StrContains(t, msg, want)
			}
		})
	}
}

func TestCheckDispatch(t *testing.T) {
	hour := time.Hour
	cfg := &ParameterizedJobConfig{Payload: DispatchPayloadRequired, MetaRequired: []string{"email"}, MetaOptional: []string{"pager"}, MaxRunDurationMax: &hour}
	job := parameterizedJob(cfg)
	ok := DispatchInputs{Payload: []byte("x"), Meta: map[string]string{"email": "a@b", "pager": "1"}, MaxRunDuration: new(30 * time.Minute)}
	must.NoError(t, job.CheckDispatch(ok))

	// Every problem at once.
	msg := problemsOf(t, job.CheckDispatch(DispatchInputs{Meta: map[string]string{"other": "1"}, MaxRunDuration: new(2 * time.Hour)}))
	for _, want := range []string{
		`Payload: job "encode" requires a payload (parameterized payload = "required")`,
		`Meta: missing required key "email" (parameterized meta_required)`,
		`Meta: key "other" is not allowed: job "encode" permits only "email", "pager"`,
		`MaxRunDuration: 2h0m0s is more than job "encode" allows a dispatch (parameterized max_run_duration_max = 1h0m0s)`,
	} {
		must.StrContains(t, msg, want)
	}
	msg = problemsOf(t, job.CheckDispatch(DispatchInputs{Payload: make([]byte, DispatchPayloadSizeLimit+1), Meta: ok.Meta}))
	must.StrContains(t, msg, "Payload: 16385 bytes is more than the limit of 16384 (16 KiB)")
	msg = problemsOf(t, job.CheckDispatch(DispatchInputs{Payload: []byte("x"), Meta: ok.Meta, MaxRunDuration: new(time.Duration(0))}))
	must.StrContains(t, msg, "MaxRunDuration: must be greater than zero")

	cfg.Payload = DispatchPayloadForbidden
	msg = problemsOf(t, job.CheckDispatch(ok))
	must.StrContains(t, msg, `forbids a payload`)

	// No cap: any positive duration.
	cfg.Payload, cfg.MaxRunDurationMax = DispatchPayloadOptional, nil
	must.NoError(t, job.CheckDispatch(DispatchInputs{Meta: map[string]string{"email": "x"}, MaxRunDuration: new(48 * time.Hour)}))

	// Meta with no keys permitted.
	bare := parameterizedJob(&ParameterizedJobConfig{})
	must.StrContains(t, problemsOf(t, bare.CheckDispatch(DispatchInputs{Meta: map[string]string{"k": "v"}})), "permits no meta keys")

	stopped := parameterizedJob(&ParameterizedJobConfig{})
	stopped.Stop = true
	must.StrContains(t, problemsOf(t, stopped.CheckDispatch(DispatchInputs{})), `Job "encode" is stopped`)

	plain := parameterizedJob(nil)
	must.StrContains(t, problemsOf(t, plain.CheckDispatch(DispatchInputs{})), `Job "encode" is not a parameterized job`)
	child := parameterizedJob(&ParameterizedJobConfig{})
	child.Dispatched = true
	must.True(t, strings.Contains(problemsOf(t, child.CheckDispatch(DispatchInputs{})), "not a parameterized job"),
		must.Sprint("a dispatched child is not dispatched again"))
}

func TestAllocation_MaxRunSetByDispatch(t *testing.T) {
	thirty := 30 * time.Second
	alloc := budgetAlloc(JobTypeBatch, time.Now().UnixNano(), &thirty)
	must.Eq(t, MaxRunScopeGroup, alloc.MaxRun().Scope)
	alloc.Job.DispatchMaxRunDuration = new(thirty)
	m := alloc.MaxRun()
	must.Eq(t, MaxRunScopeDispatch, m.Scope)
	must.Eq(t, thirty, m.Budget)
	// A change for the allocation alone still wins.
	alloc.MaxRunOverride = &MaxRunOverride{Budget: time.Minute, Replaces: thirty}
	must.Eq(t, MaxRunScopeAllocation, alloc.MaxRun().Scope)
}

func TestJob_CopyDispatchFields(t *testing.T) {
	job := parameterizedJob(&ParameterizedJobConfig{MetaRequired: []string{"a"}, MaxRunDurationMax: new(time.Hour)})
	job.Payload = []byte("abc")
	job.DispatchMaxRunDuration = new(time.Minute)
	c := job.Copy()
	c.ParameterizedJob.MetaRequired[0] = "changed"
	*c.ParameterizedJob.MaxRunDurationMax = 0
	c.Payload[0] = 'X'
	*c.DispatchMaxRunDuration = 0
	c.TaskGroups[0].Tasks[0].DispatchPayload.File = "changed"
	must.Eq(t, "a", job.ParameterizedJob.MetaRequired[0])
	must.Eq(t, time.Hour, *job.ParameterizedJob.MaxRunDurationMax)
	must.Eq(t, "abc", string(job.Payload))
	must.Eq(t, time.Minute, *job.DispatchMaxRunDuration)
	must.Eq(t, "in.json", job.TaskGroups[0].Tasks[0].DispatchPayload.File)
}

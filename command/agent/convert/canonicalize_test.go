package convert

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

// minimalAPIJob is the least a user writes: an ID, a type, a group and a
// task with a driver.
func minimalAPIJob(jobType string) *api.Job {
	return apiJob(jobType, &api.TaskGroup{
		Name:  new("g"),
		Tasks: []*api.Task{{Name: "t", Driver: "raw_exec"}},
	})
}

func TestCanonicalize_defaultsPerJobType(t *testing.T) {
	serviceRestart := &structs.RestartPolicy{Attempts: 2, Interval: 30 * time.Minute, Delay: 15 * time.Second, Mode: "fail"}
	batchRestart := &structs.RestartPolicy{Attempts: 3, Interval: 24 * time.Hour, Delay: 15 * time.Second, Mode: "fail"}
	cases := []struct {
		jobType    string // as written; "" is unset
		wantType   string
		restart    *structs.RestartPolicy
		reschedule *structs.ReschedulePolicy
	}{
		{
			jobType: "", wantType: "service", restart: serviceRestart,
			reschedule: &structs.ReschedulePolicy{Delay: 30 * time.Second, DelayFunction: "exponential", MaxDelay: time.Hour, Unlimited: true},
		},
		{
			jobType: "service", wantType: "service", restart: serviceRestart,
			reschedule: &structs.ReschedulePolicy{Delay: 30 * time.Second, DelayFunction: "exponential", MaxDelay: time.Hour, Unlimited: true},
		},
		{
			jobType: "batch", wantType: "batch", restart: batchRestart,
			reschedule: &structs.ReschedulePolicy{Attempts: 1, Interval: 24 * time.Hour, Delay: 5 * time.Second, DelayFunction: "constant"},
		},
		{jobType: "system", wantType: "system", restart: serviceRestart, reschedule: nil},
		{jobType: "sysbatch", wantType: "sysbatch", restart: batchRestart, reschedule: nil},
	}
	for _, tc := range cases {
		t.Run("type "+tc.wantType+" written "+tc.jobType, func(t *testing.T) {
			j := JobFromAPI(minimalAPIJob(tc.jobType))
			j.Canonicalize()

			want := &structs.Job{
				Region:      "global",
				Namespace:   "default",
				ID:          "example",
				Name:        "example",
				Type:        tc.wantType,
				Priority:    50,
				Datacenters: []string{"*"},
				NodePool:    "default",
				TaskGroups: []*structs.TaskGroup{{
					Name:             "g",
					Count:            1,
					RestartPolicy:    tc.restart,
					ReschedulePolicy: tc.reschedule,
					Tasks: []*structs.Task{{
						Name:          "t",
						Driver:        "raw_exec",
						Resources:     &structs.Resources{CPU: 100, MemoryMB: 300},
						RestartPolicy: tc.restart,
						KillTimeout:   5 * time.Second,
						LogConfig:     &structs.LogConfig{MaxFiles: 10, MaxFileSizeMB: 10},
					}},
				}},
			}
			must.Eq(t, want, j)
			must.Eq(t, "", j.TaskGroups[0].Tasks[0].KillSignal, must.Sprint("the client applies SIGINT"))
		})
	}
}

func TestCanonicalize_isIdempotent(t *testing.T) {
	for _, jobType := range []string{"service", "batch", "system", "sysbatch"} {
		j := JobFromAPI(minimalAPIJob(jobType))
		j.Canonicalize()
		once := j.Copy()
		j.Canonicalize()
		must.Eq(t, once, j, must.Sprint(jobType))
	}
}

func TestCanonicalize_blocks(t *testing.T) {
	cases := []struct {
		name  string
		in    *api.Job
		check func(t *testing.T, j *structs.Job)
	}{
		{
			name: "task without restart gets a copy of the group's",
			in: apiJob("service", &api.TaskGroup{
				Name:          new("g"),
				RestartPolicy: &api.RestartPolicy{Attempts: new(9)},
				Tasks:         []*api.Task{{Name: "t"}},
			}),
			check: func(t *testing.T, j *structs.Job) {
				tg := j.TaskGroups[0]
				must.Eq(t, 9, tg.Tasks[0].RestartPolicy.Attempts)
				must.NotEqOp(t, tg.RestartPolicy, tg.Tasks[0].RestartPolicy, must.Sprint("must not share"))
			},
		},
		{
			name: "job reschedule fills groups without one",
			in: func() *api.Job {
				j := apiJob("batch", &api.TaskGroup{Name: new("g")})
				j.Reschedule = &api.ReschedulePolicy{Attempts: new(6)}
				return j
			}(),
			check: func(t *testing.T, j *structs.Job) {
				must.Eq(t, j.Reschedule, j.TaskGroups[0].ReschedulePolicy)
				must.Eq(t, 6, j.TaskGroups[0].ReschedulePolicy.Attempts)
				must.NotEqOp(t, j.Reschedule, j.TaskGroups[0].ReschedulePolicy, must.Sprint("must not share"))
			},
		},
		{
			name: "system job does not inherit the job's reschedule",
			in: func() *api.Job {
				j := apiJob("system", &api.TaskGroup{Name: new("g")})
				j.Reschedule = &api.ReschedulePolicy{Attempts: new(6)}
				return j
			}(),
			check: func(t *testing.T, j *structs.Job) {
				must.Nil(t, j.TaskGroups[0].ReschedulePolicy)
			},
		},
		{
			name: "count 0 stays 0",
			in:   apiJob("batch", &api.TaskGroup{Name: new("g"), Count: new(0)}),
			check: func(t *testing.T, j *structs.Job) {
				must.Eq(t, 0, j.TaskGroups[0].Count)
			},
		},
		{
			name: "resources fill cpu and memory one by one",
			in: apiJob("batch", &api.TaskGroup{Name: new("g"), Tasks: []*api.Task{
				{Name: "memory only", Resources: &api.Resources{MemoryMB: new(512)}},
				{Name: "cpu only", Resources: &api.Resources{CPU: new(250)}},
				{Name: "cores", Resources: &api.Resources{Cores: new(2)}},
			}}),
			check: func(t *testing.T, j *structs.Job) {
				tasks := j.TaskGroups[0].Tasks
				must.Eq(t, &structs.Resources{CPU: 100, MemoryMB: 512}, tasks[0].Resources)
				must.Eq(t, &structs.Resources{CPU: 250, MemoryMB: 300}, tasks[1].Resources)
				must.Eq(t, &structs.Resources{Cores: 2, MemoryMB: 300}, tasks[2].Resources)
			},
		},
		{
			name: "log config fills missing limits",
			in: apiJob("batch", &api.TaskGroup{Name: new("g"), Tasks: []*api.Task{
				{Name: "t", LogConfig: &api.LogConfig{MaxFiles: new(3), Disabled: new(true)}},
			}}),
			check: func(t *testing.T, j *structs.Job) {
				must.Eq(t, &structs.LogConfig{MaxFiles: 3, MaxFileSizeMB: 10, Disabled: true}, j.TaskGroups[0].Tasks[0].LogConfig)
			},
		},
		{
			name: "kill timeout written keeps its value",
			in: apiJob("batch", &api.TaskGroup{Name: new("g"), Tasks: []*api.Task{
				{Name: "t", KillTimeout: new(20 * time.Second), KillSignal: "SIGTERM"},
			}}),
			check: func(t *testing.T, j *structs.Job) {
				must.Eq(t, 20*time.Second, j.TaskGroups[0].Tasks[0].KillTimeout)
				must.Eq(t, "SIGTERM", j.TaskGroups[0].Tasks[0].KillSignal)
			},
		},
		{
			name: "periodic block gets cron and UTC",
			in: func() *api.Job {
				j := apiJob("batch")
				j.Periodic = &api.PeriodicConfig{Spec: new("*/5 * * * *")}
				return j
			}(),
			check: func(t *testing.T, j *structs.Job) {
				must.Eq(t, &structs.PeriodicConfig{Enabled: true, Spec: "*/5 * * * *", SpecType: "cron", TimeZone: "UTC"}, j.Periodic)
			},
		},
		{
			name: "periodic time zone written is kept",
			in: func() *api.Job {
				j := apiJob("batch")
				j.Periodic = &api.PeriodicConfig{Spec: new("@daily"), TimeZone: new("Europe/Berlin")}
				return j
			}(),
			check: func(t *testing.T, j *structs.Job) {
				must.Eq(t, "Europe/Berlin", j.Periodic.TimeZone)
			},
		},
		{
			name: "lifecycle with empty hook stays for validation",
			in: apiJob("batch", &api.TaskGroup{Name: new("g"), Tasks: []*api.Task{
				{Name: "t", Lifecycle: &api.TaskLifecycle{}},
			}}),
			check: func(t *testing.T, j *structs.Job) {
				must.Eq(t, &structs.TaskLifecycle{}, j.TaskGroups[0].Tasks[0].Lifecycle)
			},
		},
		{
			name: "artifacts get mode and destination",
			in: apiJob("batch", &api.TaskGroup{Name: new("g"), Tasks: []*api.Task{{
				Name: "t",
				Artifacts: []*api.TaskArtifact{
					{GetterSource: new("https://example.com/a.tgz")},
					{GetterSource: new("https://example.com/dir/tool.sh?x=1"), GetterMode: new("file")},
					{GetterSource: new("https://example.com/b"), RelativeDest: new("local/b")},
				},
			}}}),
			check: func(t *testing.T, j *structs.Job) {
				as := j.TaskGroups[0].Tasks[0].Artifacts
				must.Eq(t, &structs.TaskArtifact{GetterSource: "https://example.com/a.tgz", GetterMode: "any", RelativeDest: "local/"}, as[0])
				must.Eq(t, "local/tool.sh", as[1].RelativeDest)
				must.Eq(t, "local/b", as[2].RelativeDest)
			},
		},
		{
			name: "constraint without operator means =",
			in: func() *api.Job {
				j := apiJob("batch")
				j.Constraints = []*api.Constraint{{LTarget: "${attr.kernel.name}", RTarget: "linux"}}
				return j
			}(),
			check: func(t *testing.T, j *structs.Job) {
				must.Eq(t, "=", j.Constraints[0].Operand)
			},
		},
		{
			name: "written job fields are kept",
			in: &api.Job{
				ID: new("id"), Name: new("name"), Region: new("eu"), Namespace: new("ns"),
				Priority: new(70), Datacenters: []string{"dc1"}, NodePool: new("gpu"),
			},
			check: func(t *testing.T, j *structs.Job) {
				must.Eq(t, "name", j.Name)
				must.Eq(t, "eu", j.Region)
				must.Eq(t, "ns", j.Namespace)
				must.Eq(t, 70, j.Priority)
				must.Eq(t, []string{"dc1"}, j.Datacenters)
				must.Eq(t, "gpu", j.NodePool)
			},
		},
		{
			name: "empty maps become nil",
			in: apiJob("batch", &api.TaskGroup{Name: new("g"), Meta: map[string]string{}, Tasks: []*api.Task{
				{Name: "t", Config: map[string]any{}, Env: map[string]string{}, Meta: map[string]string{}},
			}}),
			check: func(t *testing.T, j *structs.Job) {
				tg := j.TaskGroups[0]
				must.Nil(t, tg.Meta)
				must.Nil(t, tg.Tasks[0].Config)
				must.Nil(t, tg.Tasks[0].Env)
				must.Nil(t, tg.Tasks[0].Meta)
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := JobFromAPI(tc.in)
			j.Canonicalize()
			tc.check(t, j)
		})
	}
}

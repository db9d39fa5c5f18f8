package convert

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/internal/filltest"
	"github.com/drover-io/drover/structs"
)

func TestJobFromAPI_roundTripPreservesEveryField(t *testing.T) {
	want := filltest.New[api.Job]()
	in := filltest.New[api.Job]()

	j := JobFromAPI(in)
	out := JobToAPI(j)

	must.Eq(t, want, out)
	must.Eq(t, want, in, must.Sprint("JobFromAPI modified its input"))
	filltest.MustNotShare(t, in, out)
}

func TestJobToAPI_roundTripPreservesEveryField(t *testing.T) {
	want := filltest.New[structs.Job]()
	in := filltest.New[structs.Job]()

	out := JobFromAPI(JobToAPI(in))

	must.Eq(t, want, out)
	filltest.MustNotShare(t, in, out)
}

func TestJobFromAPI_nil(t *testing.T) {
	must.Nil(t, JobFromAPI(nil))
	must.Nil(t, JobToAPI(nil))
}

func TestJobFromAPI_keepsNullEntriesForValidation(t *testing.T) {
	in := &api.Job{
		ID:          new("j"),
		Constraints: []*api.Constraint{nil},
		TaskGroups: []*api.TaskGroup{nil, {
			Name:  new("g"),
			Tasks: []*api.Task{nil, {Name: "t", Artifacts: []*api.TaskArtifact{nil}}},
		}},
	}
	j := JobFromAPI(in)
	must.SliceLen(t, 1, j.Constraints)
	must.Nil(t, j.Constraints[0])
	must.SliceLen(t, 2, j.TaskGroups)
	must.Nil(t, j.TaskGroups[0])
	must.Nil(t, j.TaskGroups[1].Tasks[0])
	must.Nil(t, j.TaskGroups[1].Tasks[1].Artifacts[0])
}

// TestJobFromAPI_resolvesUnsetFields covers the defaults that only the wire
// form can tell from an explicit zero.
func TestJobFromAPI_resolvesUnsetFields(t *testing.T) {
	cases := []struct {
		name  string
		in    *api.Job
		check func(t *testing.T, j *structs.Job)
	}{
		{
			name: "count unset is 1",
			in:   apiJob("service", &api.TaskGroup{Name: new("g")}),
			check: func(t *testing.T, j *structs.Job) {
				must.Eq(t, 1, j.TaskGroups[0].Count)
			},
		},
		{
			name: "count 0 stays 0",
			in:   apiJob("service", &api.TaskGroup{Name: new("g"), Count: new(0)}),
			check: func(t *testing.T, j *structs.Job) {
				must.Eq(t, 0, j.TaskGroups[0].Count)
			},
		},
		{
			name: "absent blocks stay nil",
			in:   apiJob("batch", &api.TaskGroup{Name: new("g"), Tasks: []*api.Task{{Name: "t"}}}),
			check: func(t *testing.T, j *structs.Job) {
				tg := j.TaskGroups[0]
				must.Nil(t, tg.RestartPolicy)
				must.Nil(t, tg.ReschedulePolicy)
				must.Nil(t, tg.Tasks[0].RestartPolicy)
				must.Nil(t, tg.Tasks[0].Resources)
				must.Nil(t, tg.Tasks[0].LogConfig)
				must.Nil(t, j.Reschedule)
			},
		},
		{
			name: "group restart fields merge over the batch default",
			in: apiJob("batch", &api.TaskGroup{
				Name:          new("g"),
				RestartPolicy: &api.RestartPolicy{Attempts: new(0)},
			}),
			check: func(t *testing.T, j *structs.Job) {
				must.Eq(t, &structs.RestartPolicy{Attempts: 0, Interval: 24 * time.Hour, Delay: 15 * time.Second, Mode: "fail"},
					j.TaskGroups[0].RestartPolicy)
			},
		},
		{
			name: "task restart fields merge over the group's",
			in: apiJob("service", &api.TaskGroup{
				Name:          new("g"),
				RestartPolicy: &api.RestartPolicy{Attempts: new(7), Delay: new(time.Duration(0))},
				Tasks: []*api.Task{{
					Name:          "t",
					RestartPolicy: &api.RestartPolicy{Mode: new("delay")},
				}},
			}),
			check: func(t *testing.T, j *structs.Job) {
				must.Eq(t, &structs.RestartPolicy{Attempts: 7, Interval: 30 * time.Minute, Delay: 0, Mode: "delay"},
					j.TaskGroups[0].Tasks[0].RestartPolicy)
			},
		},
		{
			name: "task restart merges over the type default when the group has none",
			in: apiJob("batch", &api.TaskGroup{
				Name:  new("g"),
				Tasks: []*api.Task{{Name: "t", RestartPolicy: &api.RestartPolicy{Attempts: new(1)}}},
			}),
			check: func(t *testing.T, j *structs.Job) {
				must.Eq(t, &structs.RestartPolicy{Attempts: 1, Interval: 24 * time.Hour, Delay: 15 * time.Second, Mode: "fail"},
					j.TaskGroups[0].Tasks[0].RestartPolicy)
			},
		},
		{
			name: "job reschedule merges over the type default, group over the job's",
			in: func() *api.Job {
				j := apiJob("batch", &api.TaskGroup{
					Name:             new("g"),
					ReschedulePolicy: &api.ReschedulePolicy{Delay: new(time.Minute)},
				}, &api.TaskGroup{Name: new("h")})
				j.Reschedule = &api.ReschedulePolicy{Attempts: new(4), Unlimited: new(false)}
				return j
			}(),
			check: func(t *testing.T, j *structs.Job) {
				jobPolicy := &structs.ReschedulePolicy{Attempts: 4, Interval: 24 * time.Hour, Delay: 5 * time.Second, DelayFunction: "constant"}
				must.Eq(t, jobPolicy, j.Reschedule)
				must.Eq(t, &structs.ReschedulePolicy{Attempts: 4, Interval: 24 * time.Hour, Delay: time.Minute, DelayFunction: "constant"},
					j.TaskGroups[0].ReschedulePolicy)
				must.Nil(t, j.TaskGroups[1].ReschedulePolicy, must.Sprint("Canonicalize fills absent blocks"))
			},
		},
		{
			name: "reschedule with unlimited false over the service default",
			in: apiJob("", &api.TaskGroup{
				Name:             new("g"),
				ReschedulePolicy: &api.ReschedulePolicy{Unlimited: new(false), Attempts: new(3), Interval: new(time.Hour)},
			}),
			check: func(t *testing.T, j *structs.Job) {
				must.Eq(t, &structs.ReschedulePolicy{
					Attempts: 3, Interval: time.Hour, Delay: 30 * time.Second,
					DelayFunction: "exponential", MaxDelay: time.Hour, Unlimited: false,
				}, j.TaskGroups[0].ReschedulePolicy)
			},
		},
		{
			name: "periodic enabled unless written false",
			in: func() *api.Job {
				j := apiJob("batch")
				j.Periodic = &api.PeriodicConfig{Spec: new("@daily")}
				return j
			}(),
			check: func(t *testing.T, j *structs.Job) {
				must.True(t, j.Periodic.Enabled)
			},
		},
		{
			name: "periodic written false stays false",
			in: func() *api.Job {
				j := apiJob("batch")
				j.Periodic = &api.PeriodicConfig{Spec: new("@daily"), Enabled: new(false)}
				return j
			}(),
			check: func(t *testing.T, j *structs.Job) {
				must.False(t, j.Periodic.Enabled)
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, JobFromAPI(tc.in))
		})
	}
}

// apiJob is a wire job with the given type ("" for unset) and groups.
func apiJob(jobType string, groups ...*api.TaskGroup) *api.Job {
	j := &api.Job{ID: new("example"), TaskGroups: groups}
	if jobType != "" {
		j.Type = new(jobType)
	}
	return j
}

func TestEphemeralDiskFromAPI(t *testing.T) {
	must.Nil(t, ephemeralDiskFromAPI(nil))
	must.Eq(t, &structs.EphemeralDisk{SizeMB: structs.DefaultEphemeralDiskMB}, ephemeralDiskFromAPI(&api.EphemeralDisk{}))
	must.Eq(t, &structs.EphemeralDisk{SizeMB: 25}, ephemeralDiskFromAPI(&api.EphemeralDisk{SizeMB: new(25)}))
}

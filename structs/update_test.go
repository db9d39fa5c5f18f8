package structs

import (
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

func validUpdate() *UpdateStrategy {
	return &UpdateStrategy{
		MaxParallel: 1, HealthCheck: UpdateHealthTaskStates, MinHealthyTime: 10 * time.Second,
		HealthyDeadline: 5 * time.Minute, ProgressDeadline: 10 * time.Minute,
	}
}

func TestValidateUpdate(t *testing.T) {
	cases := []struct {
		name    string
		jobType string
		change  func(u *UpdateStrategy)
		want    string
	}{
		{"valid", JobTypeService, func(u *UpdateStrategy) {}, ""},
		{"no deadline", JobTypeService, func(u *UpdateStrategy) { u.ProgressDeadline = 0 }, ""},
		{"health check", JobTypeService, func(u *UpdateStrategy) { u.HealthCheck = "consul" }, `health_check must be "checks", "task_states" or "manual", got "consul"`},
		{"negative max_parallel", JobTypeService, func(u *UpdateStrategy) { u.MaxParallel = -1 }, "max_parallel must be between 0 and 10000, got -1"},
		{"canary on a service", JobTypeService, func(u *UpdateStrategy) { u.Canary = 1 }, "canary = 1: Drover does not place canaries yet"},
		{"canary on a system job", JobTypeSystem, func(u *UpdateStrategy) { u.Canary = 1 }, ""},
		{"min over deadline", JobTypeService, func(u *UpdateStrategy) { u.MinHealthyTime = 6 * time.Minute }, "min_healthy_time (6m0s) must be less than healthy_deadline (5m0s)"},
		{"zero deadline", JobTypeService, func(u *UpdateStrategy) { u.HealthyDeadline, u.MinHealthyTime = 0, 0 }, "healthy_deadline must be greater than zero"},
		{"progress under healthy", JobTypeService, func(u *UpdateStrategy) { u.ProgressDeadline = time.Minute }, "progress_deadline (1m0s) must be zero or at least healthy_deadline (5m0s)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u := validUpdate()
			tc.change(u)
			var p problems
			validateUpdate(&p, `Task group "web"`, tc.jobType, u)
			err := p.err()
			if tc.want == "" {
				must.NoError(t, err)
				return
			}
			must.ErrorContains(t, err, `Task group "web": update: `+tc.want)
		})
	}
}

func TestUpdate_systemCanaryWarns(t *testing.T) {
	j := &Job{Type: JobTypeSystem, TaskGroups: []*TaskGroup{{Name: "g", Update: validUpdate()}}}
	must.SliceEmpty(t, j.updateWarnings())
	j.TaskGroups[0].Update.Canary = 2
	w := j.updateWarnings()
	must.SliceLen(t, 1, w)
	must.True(t, strings.Contains(w[0], "canary = 2 is ignored"), must.Sprint(w[0]))
}

func TestUpdate_batchDropsIt(t *testing.T) {
	j := &Job{ID: "b", Type: JobTypeBatch, Update: validUpdate(), TaskGroups: []*TaskGroup{{Name: "g", Update: validUpdate()}}}
	j.Canonicalize()
	must.Nil(t, j.Update)
	must.Nil(t, j.TaskGroups[0].Update)
}

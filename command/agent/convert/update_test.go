package convert

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

func TestUpdate_groupMergedOverJob(t *testing.T) {
	jobType := "service"
	group := "web"
	in := &api.Job{
		ID: &group, Type: &jobType,
		Update: &api.UpdateStrategy{MaxParallel: new(3), AutoRevert: new(true), MinHealthyTime: new(5 * time.Second)},
		TaskGroups: []*api.TaskGroup{
			{Name: new("a"), Update: &api.UpdateStrategy{MaxParallel: new(1), HealthCheck: new("task_states")}},
			{Name: new("b")},
			{Name: new("c"), Update: &api.UpdateStrategy{}},
		},
	}
	j := JobFromAPI(in)
	a, b, c := j.TaskGroups[0].Update, j.TaskGroups[1].Update, j.TaskGroups[2].Update
	must.Eq(t, &structs.UpdateStrategy{
		Stagger: 30 * time.Second, MaxParallel: 1, HealthCheck: "task_states", MinHealthyTime: 5 * time.Second,
		HealthyDeadline: 5 * time.Minute, ProgressDeadline: 10 * time.Minute, AutoRevert: true,
	}, a, must.Sprint("the group's fields over the job's over Nomad's defaults"))
	must.Eq(t, 3, b.MaxParallel, must.Sprint("a group without a block inherits the job's"))
	must.True(t, b.AutoRevert)
	must.Eq(t, 3, c.MaxParallel, must.Sprint("an empty group block inherits the job's"))
	must.Eq(t, 3, j.Update.MaxParallel)

	back := JobToAPI(j)
	must.Eq(t, 1, *back.TaskGroups[0].Update.MaxParallel)
	must.Eq(t, "task_states", *back.TaskGroups[0].Update.HealthCheck)
}

func TestUpdate_absentStaysAbsent(t *testing.T) {
	in := &api.Job{ID: new("x"), Update: &api.UpdateStrategy{}, TaskGroups: []*api.TaskGroup{{Name: new("a")}}}
	j := JobFromAPI(in)
	must.Eq(t, structs.DefaultUpdateMaxParallel, j.Update.MaxParallel, must.Sprint("an empty job block asks for the defaults"))
	must.Nil(t, j.TaskGroups[0].Update, must.Sprint("a group inherits no empty job block, as in Nomad"))
	none := JobFromAPI(&api.Job{ID: new("y"), TaskGroups: []*api.TaskGroup{{Name: new("a")}}})
	must.Nil(t, none.Update)
	must.Nil(t, none.TaskGroups[0].Update)
}

package structs

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

func TestNamespace_TimeLimits(t *testing.T) {
	dur := func(d time.Duration) *time.Duration { return &d }
	ns := &Namespace{Name: "batch", TimeLimits: &NamespaceTimeLimits{
		MaxRunDurationDefault:     time.Hour,
		MaxRunDurationMax:         4 * time.Hour,
		AllocDeadlineExtensionMax: 30 * time.Minute,
	}}

	t.Run("default fills groups without a budget", func(t *testing.T) {
		j := validJob(JobTypeBatch)
		addTask(j, "t2")
		j.TaskGroups = append(j.TaskGroups, &TaskGroup{Name: "own", MaxRunDuration: dur(2 * time.Hour)})
		must.True(t, ns.ApplyTimeLimits(j))
		must.Eq(t, time.Hour, *j.TaskGroups[0].MaxRunDuration)
		must.Eq(t, 2*time.Hour, *j.TaskGroups[1].MaxRunDuration)
		must.False(t, ns.ApplyTimeLimits(j), must.Sprint("nothing left to fill"))
	})
	t.Run("not for service jobs", func(t *testing.T) {
		j := validJob(JobTypeService)
		must.False(t, ns.ApplyTimeLimits(j))
		must.Nil(t, j.TaskGroups[0].MaxRunDuration)
	})
	t.Run("ceiling is the default when none is set", func(t *testing.T) {
		j := validJob(JobTypeBatch)
		only := &Namespace{Name: "n", TimeLimits: &NamespaceTimeLimits{MaxRunDurationMax: 2 * time.Hour}}
		must.True(t, only.ApplyTimeLimits(j))
		must.Eq(t, 2*time.Hour, *j.TaskGroups[0].MaxRunDuration)
	})
	t.Run("ceiling names both values", func(t *testing.T) {
		j := validJob(JobTypeBatch)
		j.MaxRunDuration = dur(5 * time.Hour)
		group(j).MaxRunDuration = dur(4 * time.Hour)
		task(j).MaxRunDuration = dur(6 * time.Hour)
		j.DispatchMaxRunDuration = dur(10 * time.Hour)
		err := ns.CheckTimeLimits(j)
		must.Error(t, err)
		must.StrContains(t, err.Error(), `Job max_run_duration 5h0m0s exceeds namespace "batch"'s ceiling of 4h0m0s`)
		must.StrContains(t, err.Error(), `Dispatch max_run_duration 10h0m0s exceeds namespace "batch"'s ceiling of 4h0m0s`)
		must.StrContains(t, err.Error(), `Task group "g" task "t": max_run_duration 6h0m0s exceeds namespace "batch"'s ceiling of 4h0m0s`)
		must.StrNotContains(t, err.Error(), `Task group "g": max_run_duration`, must.Sprint("at the ceiling is within it"))
		group(j).MaxRunDuration = dur(4*time.Hour + 1)
		must.StrContains(t, ns.CheckTimeLimits(j).Error(), `Task group "g": max_run_duration 4h0m0.000000001s exceeds`)
		must.NoError(t, (&Namespace{Name: "free"}).CheckTimeLimits(j))
	})
	t.Run("alloc deadline extension", func(t *testing.T) {
		must.NoError(t, ns.CheckMaxRunChange(90*time.Minute, time.Hour))
		must.NoError(t, ns.CheckMaxRunChange(time.Minute, time.Hour), must.Sprint("shortening is always allowed"))
		err := ns.CheckMaxRunChange(90*time.Minute+1, time.Hour)
		must.EqError(t, err, `max_run_duration 1h30m0.000000001s moves the deadline 30m0.000000001s past the group's 1h0m0s; namespace "batch" allows at most 30m0s`)
	})
	t.Run("validate", func(t *testing.T) {
		bad := &Namespace{Name: "bad", TimeLimits: &NamespaceTimeLimits{MaxRunDurationDefault: 2 * time.Hour, MaxRunDurationMax: time.Hour, AllocDeadlineExtensionMax: -1}}
		err := bad.Validate()
		must.StrContains(t, err.Error(), `namespace "bad": TimeLimits.AllocDeadlineExtensionMax must not be negative, got -1ns`)
		must.StrContains(t, err.Error(), `namespace "bad": TimeLimits.MaxRunDurationDefault 2h0m0s is longer than TimeLimits.MaxRunDurationMax 1h0m0s`)
		must.NoError(t, ns.Validate())
	})
}

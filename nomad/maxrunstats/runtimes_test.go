package maxrunstats

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/nomad/internal/fixture"
	"github.com/drover-io/drover/structs"
)

func TestMaxRunStats_RunTimeGauges(t *testing.T) {
	m, sink := fixture.StatsSink(t)
	stats := New(time.Now(), m)
	group := map[string]string{"namespace": "default", "job": "Bounded", "task_group": "group"}
	var allocs []*structs.Allocation
	for i := 1; i <= 20; i++ {
		a := statsAlloc(time.Now())
		a.ClientStatus = structs.AllocClientStatusComplete
		a.TaskStates["task"].FinishedAt = time.Unix(0, a.CreateTime).Add(time.Duration(i) * 100 * time.Millisecond)
		allocs = append(allocs, a)
	}
	free := fixture.Alloc(fixture.Job("free"), "node-1")
	free.ClientStatus = structs.AllocClientStatusComplete
	free.TaskStates = map[string]*structs.TaskState{"task": {FinishedAt: time.Unix(0, free.CreateTime).Add(time.Second)}}
	allocs = append(allocs, free, statsAlloc(time.Now()))

	stats.runTimes(allocs)
	for _, c := range []struct {
		key  []string
		want float32
	}{
		{MetricRunTimeP50, 1.0},
		{MetricRunTimeP95, 1.9},
		{MetricRunTimeMax, 2.0},
		{MetricRunTimeCount, 20},
		{MetricRunTimeBudget, 10},
	} {
		got, ok := fixture.GaugeValue(sink, c.key, group)
		must.True(t, ok, must.Sprintf("%v", c.key))
		must.Eq(t, c.want, got, must.Sprintf("%v", c.key))
	}
	_, ok := fixture.GaugeValue(sink, MetricRunTimeP95, map[string]string{"namespace": "default", "job": "free", "task_group": "group"})
	must.False(t, ok, must.Sprint("no budget, no series"))
}

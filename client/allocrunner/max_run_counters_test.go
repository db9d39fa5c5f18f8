package allocrunner

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// countersOf are the counter emissions of key, as label maps with their
// values.
func (r *metricsRecorder) countersOf(key []string) []emission {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []emission
	for _, c := range r.counters {
		if c.name == "nomad."+joinKey(key) {
			out = append(out, c)
		}
	}
	return out
}

func joinKey(key []string) string { return strings.Join(key, ".") }

func TestMaxRunCounters_TaskExceededAndWarnings(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := newMetricsRecorder()
		task := withOwnLimit(mockTask("slow", map[string]any{"run_for": "1h"}), 10*time.Second)
		task.MaxRunWarning = &structs.MaxRunWarning{Signal: "SIGUSR1", Before: 3 * time.Second}
		alloc := testAlloc(task, mockTask("other", map[string]any{"run_for": "1s"}))
		h := newARHarness(t, alloc, func(cfg *Config) { cfg.Metrics = rec.metrics })
		runToEnd(h.ar)

		want := map[string]string{
			"job": "example", "namespace": "default", "task_group": "web", "task": "slow",
			"node_id": "node-1", "datacenter": "dc1", "node_class": "", "node_pool": "",
		}
		for _, key := range [][]string{metricMaxRunTaskExceeded, metricMaxRunWarnings} {
			got := rec.countersOf(key)
			must.Len(t, 1, got, must.Sprint(joinKey(key)))
			must.Eq(t, float32(1), got[0].value)
			must.Eq(t, want, labelMap(got[0].labels), must.Sprint(joinKey(key)))
		}
		must.SliceEmpty(t, rec.countersOf(metricMaxRunExceeded), must.Sprint("the allocation did not time out"))
	})
}

func TestTouchMaxRunCounters(t *testing.T) {
	node := &structs.Node{ID: "node-1", Datacenter: "dc1"}
	own := withOwnLimit(mockTask("own", nil), time.Minute)
	warned := mockTask("warned", nil)
	warned.MaxRunWarning = &structs.MaxRunWarning{Signal: "SIGUSR1", Before: time.Second}
	plain := mockTask("plain", nil)

	cases := []struct {
		name  string
		alloc func() *structs.Allocation
		want  map[string][]string // counter -> tasks ("" for the group's)
	}{
		{name: "group limit", alloc: func() *structs.Allocation {
			return budgeted(testAlloc(plain.Copy()), time.Minute)
		}, want: map[string][]string{joinKey(metricMaxRunExceeded): {""}}},
		{name: "task limit and warning", alloc: func() *structs.Allocation {
			return testAlloc(own.Copy(), warned.Copy(), plain.Copy())
		}, want: map[string][]string{joinKey(metricMaxRunTaskExceeded): {"own"}, joinKey(metricMaxRunWarnings): {"warned"}}},
		{name: "changed for the allocation", alloc: func() *structs.Allocation {
			a := testAlloc(plain.Copy())
			a.MaxRunOverride = &structs.MaxRunOverride{Budget: time.Minute}
			return a
		}, want: map[string][]string{joinKey(metricMaxRunExceeded): {""}}},
		{name: "none", alloc: func() *structs.Allocation { return testAlloc(plain.Copy()) }, want: map[string][]string{}},
		{name: "service job", alloc: func() *structs.Allocation {
			a := testAlloc(own.Copy(), warned.Copy())
			a.Job.Type = structs.JobTypeService
			return a
		}, want: map[string][]string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := newMetricsRecorder()
			TouchMaxRunCounters(rec.metrics, tc.alloc(), node)
			got := map[string][]string{}
			for _, c := range rec.counters {
				must.Eq(t, float32(0), c.value, must.Sprint("a touch adds nothing"))
				labels := labelMap(c.labels)
				must.MapNotContainsKey(t, labels, "alloc_id")
				must.Eq(t, "node-1", labels["node_id"])
				got[c.name[len("nomad."):]] = append(got[c.name[len("nomad."):]], labels["task"])
			}
			must.Eq(t, tc.want, got)
		})
	}
}

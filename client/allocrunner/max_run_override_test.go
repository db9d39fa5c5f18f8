package allocrunner

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// withOverride returns a copy of a, of its next job version, with its
// budget changed to budget over the group's replaces.
func withOverride(a *structs.Allocation, budget, replaces time.Duration) *structs.Allocation {
	c := a.Copy()
	c.AllocModifyIndex++
	c.MaxRunOverride = &structs.MaxRunOverride{Budget: budget, Replaces: replaces}
	return c
}

func TestAllocRunner_MaxRunOverride(t *testing.T) {
	cases := []struct {
		name string
		// updates are applied at 4s, then 6s.
		updates  func(a *structs.Allocation) []*structs.Allocation
		wantDead time.Duration
	}{
		{name: "raised", updates: func(a *structs.Allocation) []*structs.Allocation {
			return []*structs.Allocation{withOverride(a, 20*time.Second, 10*time.Second)}
		}, wantDead: 20 * time.Second},
		{name: "lowered", updates: func(a *structs.Allocation) []*structs.Allocation {
			return []*structs.Allocation{withOverride(a, 5*time.Second, 10*time.Second)}
		}, wantDead: 5 * time.Second},
		{name: "lowered below the time run: at once", updates: func(a *structs.Allocation) []*structs.Allocation {
			return []*structs.Allocation{withOverride(a, 3*time.Second, 10*time.Second)}
		}, wantDead: 4 * time.Second},
		{name: "raised, then a job update of the group's limit replaces it", updates: func(a *structs.Allocation) []*structs.Allocation {
			raised := withOverride(a, 20*time.Second, 10*time.Second)
			updated := withMaxRunDuration(raised, 30*time.Second)
			updated.Job.Version++
			return []*structs.Allocation{raised, updated}
		}, wantDead: 30 * time.Second},
		{name: "raised, then a job update of something else keeps it", updates: func(a *structs.Allocation) []*structs.Allocation {
			raised := withOverride(a, 20*time.Second, 10*time.Second)
			updated := raised.Copy()
			updated.Job.Version++
			updated.Job.Meta = map[string]string{"v": "2"}
			return []*structs.Allocation{raised, updated}
		}, wantDead: 20 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				alloc := budgeted(testAlloc(mockTask("main", map[string]any{"run_for": "1h"})), 10*time.Second)
				h := newARHarness(t, alloc)
				start := time.Now()
				go h.ar.Run()
				for i, u := range tc.updates(alloc) {
					time.Sleep(time.Until(start.Add(time.Duration(4+2*i) * time.Second)))
					h.ar.Update(u)
				}
				<-h.ar.WaitCh()
				a := mustExceeded(t, h)
				must.Eq(t, start.Add(tc.wantDead), a.TaskStates["main"].FinishedAt)
				mustKilledForMaxRun(t, a.TaskStates["main"], "main")
			})
		})
	}
}

package command

import (
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

// TestJobWaiter_finishPending: placements given up for
// max_pending_duration exit 5, over a timeout and a success, but a
// failure's 1 wins; without any, finish decides alone.
func TestJobWaiter_finishPending(t *testing.T) {
	alloc := func(id, status string) *api.AllocationListStub {
		return &api.AllocationListStub{ID: id, Name: "j.g[" + id + "]", ClientStatus: status, DesiredStatus: api.AllocDesiredStatusRun}
	}
	cases := []struct {
		name    string
		latest  []*api.AllocationListStub
		expired int
		want    int
		says    []string
	}{
		{name: "nothing placed", expired: 2, want: exitPendingTimeout,
			says: []string{"2 placements given up: exceeded max_pending_duration", `Job "j" finished without allocations`, `Job "j" exceeded max_pending_duration`}},
		{name: "one completed", latest: []*api.AllocationListStub{alloc("a", api.AllocClientStatusComplete)}, expired: 1, want: exitPendingTimeout,
			says: []string{"1 placement given up", `Job "j" finished: 1 allocation, 1 complete`}},
		{name: "one failed", latest: []*api.AllocationListStub{alloc("a", api.AllocClientStatusFailed)}, expired: 1, want: exitError},
		{name: "none given up", latest: []*api.AllocationListStub{alloc("a", api.AllocClientStatusComplete)}, want: exitOK},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ui := newTestUi()
			w := newJobWaiter(newEvalMonitor(ui, nil, false), "j", "", 0)
			must.Eq(t, tc.want, w.finishPending(tc.latest, tc.expired))
			for _, s := range tc.says {
				must.StrContains(t, uiOutput(ui), s)
			}
		})
	}
}

func TestWaitsForPlacement(t *testing.T) {
	must.False(t, waitsForPlacement(nil))
	must.False(t, waitsForPlacement(&api.Job{TaskGroups: []*api.TaskGroup{{}}}))
	must.True(t, waitsForPlacement(&api.Job{MaxPendingDuration: new(time.Second)}))
	must.True(t, waitsForPlacement(&api.Job{TaskGroups: []*api.TaskGroup{{}, {MaxPendingDuration: new(time.Second)}}}))
}

func TestPendingTimeoutRows(t *testing.T) {
	must.SliceEmpty(t, pendingTimeoutRows([]*api.Evaluation{{Status: "complete"}}))
	rows := pendingTimeoutRows([]*api.Evaluation{{
		PendingSince: time.Unix(100, 0).UnixNano(), ModifyTime: time.Unix(102, 0).UnixNano(),
		PendingExpired: map[string]int{"b": 1, "a": 3, "zero": 0},
	}})
	must.Len(t, 3, rows)
	must.StrHasPrefix(t, "a|3|", rows[1])
	must.StrHasPrefix(t, "b|1|", rows[2])
	must.True(t, strings.HasSuffix(rows[1], "|exceeded max_pending_duration"))
}

package command

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

func TestBudgetChange(t *testing.T) {
	cases := []struct {
		arg     string
		current time.Duration
		want    time.Duration
		wantErr string
	}{
		{arg: "2h", current: time.Hour, want: 2 * time.Hour},
		{arg: "2h", want: 2 * time.Hour},
		{arg: "90m", current: 10 * time.Hour, want: 90 * time.Minute},
		{arg: "+30m", current: time.Hour, want: 90 * time.Minute},
		{arg: "-10m", current: time.Hour, want: 50 * time.Minute},
		{arg: "+30m", wantErr: "it has no max_run_duration to change; give the whole budget, such as 2h"},
		{arg: "-1h", current: time.Hour, wantErr: "its budget is 1h: taking 1h leaves nothing"},
		{arg: "+1s", current: time.Duration(1<<63 - 1), wantErr: "is too long"},
	}
	for _, tc := range cases {
		t.Run(tc.arg, func(t *testing.T) {
			c, err := parseBudgetChange(tc.arg)
			must.NoError(t, err)
			got, err := c.apply(tc.current)
			if tc.wantErr != "" {
				must.ErrorContains(t, err, tc.wantErr)
				return
			}
			must.NoError(t, err)
			must.Eq(t, tc.want, got)
		})
	}
	for _, bad := range []string{"", "2", "soon", "0s", "+0s", "-", "+-5m", "--5m", "+", "-5"} {
		_, err := parseBudgetChange(bad)
		must.ErrorContains(t, err, "invalid duration", must.Sprintf("%q", bad))
	}
}

func TestFormatDeadlineChange(t *testing.T) {
	now := time.Date(2026, 11, 29, 23, 40, 0, 0, time.UTC)
	deadline := now.Add(50 * time.Minute)
	alloc := &api.Allocation{ID: "0a1b2c3d-0000-0000-0000-000000000000", MaxRunDuration: time.Hour}
	resp := &api.AllocMaxRunDurationResponse{MaxRunDuration: 90 * time.Minute, MaxRunDeadline: deadline.UnixNano()}
	must.Eq(t, "ID               = 0a1b2c3d\n"+
		"Max Run Duration = 1h => 1h30m\n"+
		"Deadline         = "+formatTimeMillis(deadline)+" (in 50m)", formatDeadlineChange(alloc, resp, false, now))

	alloc.MaxRunDuration = 0
	must.StrContains(t, formatDeadlineChange(alloc, resp, true, now), "Max Run Duration = none => 1h30m")
}

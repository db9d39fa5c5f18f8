package servicecheck

import (
	"testing"

	"github.com/shoenig/test/must"
)

func TestTracker_thresholds(t *testing.T) {
	cases := []struct {
		name    string
		th      thresholds
		initial Health
		results []Health
		want    []Health
	}{
		{name: "defaults move at once", results: []Health{Critical, Passing, Warning, Passing},
			want: []Health{Critical, Passing, Warning, Passing}},
		{name: "success_before_passing", th: thresholds{successBeforePassing: 3}, initial: Critical,
			results: []Health{Passing, Passing, Critical, Passing, Passing, Passing},
			want:    []Health{Critical, Critical, Critical, Critical, Critical, Passing}},
		{name: "failures_before_critical", th: thresholds{failuresBeforeCritical: 3}, initial: Passing,
			results: []Health{Critical, Critical, Passing, Critical, Critical, Critical},
			want:    []Health{Passing, Passing, Passing, Passing, Passing, Critical}},
		{name: "failures_before_warning then critical", th: thresholds{failuresBeforeWarning: 2, failuresBeforeCritical: 4},
			results: []Health{Critical, Critical, Critical, Critical},
			want:    []Health{Pending, Warning, Warning, Critical}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := tracker{thresholds: tc.th, health: tc.initial}
			var got []Health
			for _, r := range tc.results {
				got = append(got, tr.observe(r))
			}
			must.Eq(t, tc.want, got)
		})
	}
}

func TestHealth_apiStatus(t *testing.T) {
	must.Eq(t, "success", Passing.apiStatus())
	must.Eq(t, "warning", Warning.apiStatus())
	must.Eq(t, "failure", Critical.apiStatus())
	must.Eq(t, "pending", Pending.apiStatus())
}

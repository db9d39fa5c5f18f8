package command

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

func ptr[T any](v T) *T { return &v }

func TestNextLaunch(t *testing.T) {
	now := time.Date(2026, 11, 29, 23, 34, 11, 0, time.UTC)
	berlin, err := time.LoadLocation("Europe/Berlin")
	must.NoError(t, err)

	cases := []struct {
		name string
		p    *api.PeriodicConfig
		want time.Time
	}{
		{
			name: "every five minutes, UTC by default",
			p:    &api.PeriodicConfig{Spec: ptr("*/5 * * * *")},
			want: time.Date(2026, 11, 29, 23, 35, 0, 0, time.UTC),
		},
		{
			name: "daily at 08:00 in the job's time zone",
			p:    &api.PeriodicConfig{Spec: ptr("0 8 * * *"), TimeZone: ptr("Europe/Berlin")},
			want: time.Date(2026, 11, 30, 8, 0, 0, 0, berlin),
		},
		{
			name: "earliest of several specs",
			p:    &api.PeriodicConfig{Specs: []string{"0 0 * * *", "45 23 * * *"}, SpecType: ptr("cron")},
			want: time.Date(2026, 11, 29, 23, 45, 0, 0, time.UTC),
		},
		{
			name: "a spec that never fires again",
			p:    &api.PeriodicConfig{Spec: ptr("0 0 1 1 * 2020")},
			want: time.Time{},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := nextLaunch(tc.p, now)
			must.NoError(t, err)
			must.True(t, tc.want.Equal(got), must.Sprintf("want %v, got %v", tc.want, got))
		})
	}
}

func TestNextLaunch_Errors(t *testing.T) {
	now := time.Now()
	cases := []struct {
		name string
		p    *api.PeriodicConfig
		want string
	}{
		{"nil", nil, "not periodic"},
		{"no spec", &api.PeriodicConfig{}, "no cron spec"},
		{"bad spec", &api.PeriodicConfig{Spec: ptr("every tuesday")}, `"every tuesday"`},
		{"bad zone", &api.PeriodicConfig{Spec: ptr("* * * * *"), TimeZone: ptr("Mars/Olympus")}, `"Mars/Olympus"`},
		{"bad type", &api.PeriodicConfig{Spec: ptr("* * * * *"), SpecType: ptr("rrule")}, `"rrule"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := nextLaunch(tc.p, now)
			must.ErrorContains(t, err, tc.want)
		})
	}
}

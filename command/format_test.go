package command

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

func TestFormatKV_AlignsKeys(t *testing.T) {
	got := formatKV([]string{
		"ID|example",
		"Submit Date|2026-11-29T23:34:11Z",
		"Parameterized|false",
		"Empty|",
		"Pipes|a|b",
	})
	want := "" +
		"ID            = example\n" +
		"Submit Date   = 2026-11-29T23:34:11Z\n" +
		"Parameterized = false\n" +
		"Empty         =\n" +
		"Pipes         = a|b"
	must.Eq(t, want, got)
}

func TestFormatList_AlignsColumnsTwoSpacesApart(t *testing.T) {
	got := formatList([]string{
		"ID|Type|Priority|Status",
		"maxrun|batch|50|pending",
		"a-much-longer-id|service|100|",
	})
	want := "" +
		"ID                Type     Priority  Status\n" +
		"maxrun            batch    50        pending\n" +
		"a-much-longer-id  service  100"
	must.Eq(t, want, got)
}

func TestFormatDuration(t *testing.T) {
	cases := []struct {
		in   time.Duration
		want string
	}{
		{0, "0s"},
		{400 * time.Millisecond, "400ms"},
		{600*time.Millisecond + 400*time.Microsecond, "600ms"},
		{-250 * time.Millisecond, "-250ms"},
		{1400 * time.Millisecond, "1s"},
		{12 * time.Second, "12s"},
		{5*time.Minute + 3*time.Second, "5m3s"},
		{5 * time.Minute, "5m"},
		{time.Hour + 2*time.Minute + 30*time.Second, "1h2m"},
		{2*time.Hour + 10*time.Second, "2h"},
		{3*24*time.Hour + 4*time.Hour + 5*time.Minute, "3d4h"},
		{-90 * time.Second, "-1m30s"},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			must.Eq(t, tc.want, formatDuration(tc.in))
		})
	}
}

func TestPrettyTimeDiff(t *testing.T) {
	now := time.Date(2026, 11, 29, 23, 34, 11, 0, time.UTC)
	must.Eq(t, "5s ago", prettyTimeDiff(now.Add(-5*time.Second), now))
	must.Eq(t, "in 12s", prettyTimeDiff(now.Add(12*time.Second), now))
	must.Eq(t, "1h2m ago", prettyTimeDiff(now.Add(-62*time.Minute), now))
	must.Eq(t, "0s ago", prettyTimeDiff(now, now))
	must.Eq(t, "<none>", prettyTimeDiff(time.Time{}, now))
	must.Eq(t, "<none>", prettyUnixNano(0, now))
	must.Eq(t, "5s ago", prettyUnixNano(now.Add(-5*time.Second).UnixNano(), now))
}

func TestFormatTime(t *testing.T) {
	at := time.Date(2026, 11, 29, 23, 34, 11, 999, time.UTC)
	must.Eq(t, "2026-11-29T23:34:11Z", formatTimeIn(at, time.UTC))
	must.Eq(t, "2026-11-30T00:34:11+01:00", formatTimeIn(at, time.FixedZone("CET", 3600)))

	// In local time, whatever zone this machine is in, it names the same
	// second.
	for _, s := range []string{formatTime(at), formatUnixNano(at.UnixNano())} {
		parsed, err := time.Parse(time.RFC3339, s)
		must.NoError(t, err)
		must.True(t, parsed.Equal(at.Truncate(time.Second)), must.Sprintf("%s is not %v", s, at))
	}

	must.Eq(t, "<none>", formatTime(time.Time{}))
	must.Eq(t, "<none>", formatUnixNano(0))
}

func TestLimit(t *testing.T) {
	must.Eq(t, "1a2b3c4d", limit("1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d", 8))
	must.Eq(t, "abc", limit("abc", 8))
	must.Eq(t, "", limit("", 8))
	must.Eq(t, "1a2b3c4d", shortID("1a2b3c4d-5e6f", false))
	must.Eq(t, "1a2b3c4d-5e6f", shortID("1a2b3c4d-5e6f", true))
}

// TestExactDuration: a configured duration shows exactly, and reads back
// to the same value.
func TestExactDuration(t *testing.T) {
	cases := []struct {
		in   time.Duration
		want string
	}{
		{0, "0s"},
		{500 * time.Millisecond, "500ms"},
		{1500 * time.Millisecond, "1.5s"},
		{10 * time.Second, "10s"},
		{90*time.Minute + 30*time.Second, "1h30m30s"},
		{2 * time.Hour, "2h"},
		{time.Hour + 5*time.Second, "1h5s"},
		{36 * time.Hour, "36h"},
		{time.Minute + 1, "1m1ns"},
		{-90 * time.Second, "-1m30s"},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			got := exactDuration(tc.in)
			must.Eq(t, tc.want, got)
			back, err := time.ParseDuration(got)
			must.NoError(t, err)
			must.Eq(t, tc.in, back)
		})
	}
}

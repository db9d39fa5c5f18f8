package command

import (
	"fmt"
	"strings"
	"time"
)

// shortIDLength is how much of an ID the tables show unless -verbose.
const shortIDLength = 8

// limit returns s cut to at most n bytes: IDs are ASCII.
func limit(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// formatKV aligns "Key|Value" rows into a block of "Key   = Value" lines, the
// keys padded to the longest one. Only the first "|" splits a row, so
// values may contain pipes.
func formatKV(rows []string) string {
	keys := make([]string, len(rows))
	values := make([]string, len(rows))
	width := 0
	for i, row := range rows {
		keys[i], values[i], _ = strings.Cut(row, "|")
		width = max(width, len(keys[i]))
	}
	lines := make([]string, len(rows))
	for i := range rows {
		lines[i] = strings.TrimRight(fmt.Sprintf("%-*s = %s", width, keys[i], values[i]), " ")
	}
	return strings.Join(lines, "\n")
}

// formatList aligns pipe-separated rows into columns two spaces apart, each
// column as wide as its widest cell. The first row is usually the header.
func formatList(rows []string) string {
	cells := make([][]string, len(rows))
	var widths []int
	for i, row := range rows {
		cells[i] = strings.Split(row, "|")
		for j, cell := range cells[i] {
			if j == len(widths) {
				widths = append(widths, 0)
			}
			widths[j] = max(widths[j], len(cell))
		}
	}
	lines := make([]string, len(rows))
	for i, row := range cells {
		var b strings.Builder
		for j, cell := range row {
			if j > 0 {
				b.WriteString("  ")
			}
			if j < len(row)-1 {
				fmt.Fprintf(&b, "%-*s", widths[j], cell)
			} else {
				b.WriteString(cell)
			}
		}
		lines[i] = strings.TrimRight(b.String(), " ")
	}
	return strings.Join(lines, "\n")
}

// timeLayout is how absolute times are shown: RFC 3339 in local time, which
// reads "2026-11-29T23:34:11Z" on a machine set to UTC.
const timeLayout = "2006-01-02T15:04:05Z07:00"

// formatTime shows t to the second in local time; the zero time is "<none>".
func formatTime(t time.Time) string {
	return formatTimeIn(t, time.Local)
}

// formatTimeIn is formatTime in the given location.
func formatTimeIn(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return "<none>"
	}
	return t.In(loc).Format(timeLayout)
}

// timeLayoutMillis is timeLayout to the millisecond, for the times one
// compares with a deadline: "2026-11-29T23:34:11.042Z".
const timeLayoutMillis = "2006-01-02T15:04:05.000Z07:00"

// formatTimeMillis shows t to the millisecond (cut, as formatTime cuts to
// the second) in local time; the zero time is "<none>". Deadlines, the
// times tasks started and finished, and their events show so: to the
// second, a kill half a millisecond after a deadline at .9997 reads a
// second late.
func formatTimeMillis(t time.Time) string {
	if t.IsZero() {
		return "<none>"
	}
	return t.In(time.Local).Format(timeLayoutMillis)
}

// formatUnixNano is formatTime for the Unix nanoseconds of the wire types,
// where zero means "never".
func formatUnixNano(ns int64) string {
	if ns == 0 {
		return "<none>"
	}
	return formatTime(time.Unix(0, ns))
}

// prettyTimeDiff says how far t is from now: "5s ago", "1h2m ago" or, for a
// time still to come, "in 12s".
func prettyTimeDiff(t, now time.Time) string {
	if t.IsZero() {
		return "<none>"
	}
	d := now.Sub(t).Round(time.Second)
	if d < 0 {
		return "in " + formatDuration(-d)
	}
	return formatDuration(d) + " ago"
}

// prettyUnixNano is prettyTimeDiff for Unix nanoseconds; zero is "<none>".
func prettyUnixNano(ns int64, now time.Time) string {
	if ns == 0 {
		return "<none>"
	}
	return prettyTimeDiff(time.Unix(0, ns), now)
}

// formatDuration shows a span of time measured against now (time left,
// "5s ago", the next launch) in whole seconds with at most its two largest
// units, such as "12s", "5m3s", "1h2m", "2h" or "3d4h": precise enough to
// read at a glance. A span under a second shows in milliseconds ("350ms"),
// so that a short budget's time left does not read "0s". Durations a user
// configured are exactDuration's.
func formatDuration(d time.Duration) string {
	if d != 0 && d > -time.Second && d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	d = d.Round(time.Second)
	if d < 0 {
		return "-" + formatDuration(-d)
	}
	units := []struct {
		size time.Duration
		name string
	}{
		{24 * time.Hour, "d"},
		{time.Hour, "h"},
		{time.Minute, "m"},
		{time.Second, "s"},
	}
	for i, u := range units {
		n := d / u.size
		if n == 0 && u.size != time.Second {
			continue
		}
		out := fmt.Sprintf("%d%s", n, u.name)
		if i+1 < len(units) {
			next := units[i+1]
			if m := (d - n*u.size) / next.size; m > 0 {
				out += fmt.Sprintf("%d%s", m, next.name)
			}
		}
		return out
	}
	return "0s" // unreachable: the seconds unit always answers
}

// exactDuration shows a duration a user configured (a max_run_duration, a
// wait) exactly, as Go's duration syntax writes it but without zero
// units: "500ms", "1h30m30s", "2h", "1h5s", "1.5s". time.ParseDuration
// reads it back to the same value.
func exactDuration(d time.Duration) string {
	if d < 0 {
		return "-" + exactDuration(-d)
	}
	if d == 0 {
		return "0s"
	}
	var b strings.Builder
	if h := d / time.Hour; h > 0 {
		fmt.Fprintf(&b, "%dh", h)
		d -= h * time.Hour
	}
	if m := d / time.Minute; m > 0 {
		fmt.Fprintf(&b, "%dm", m)
		d -= m * time.Minute
	}
	if d > 0 {
		b.WriteString(d.String()) // under a minute: "30s", "1.5s", "500ms"
	}
	return b.String()
}

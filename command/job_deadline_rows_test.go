package command

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

func TestJobDeadlineRows(t *testing.T) {
	now := time.Date(2026, 12, 7, 22, 0, 0, 0, time.UTC)
	must.SliceEmpty(t, jobDeadlineRows(&api.Job{}, now))

	job := &api.Job{
		MaxRunDuration: new(time.Hour),
		SubmitTime:     new(now.Add(-10 * time.Minute).UnixNano()),
		Deadline:       &api.JobDeadline{At: now.Add(2 * time.Hour).UnixNano()},
	}
	rows := jobDeadlineRows(job, now)
	must.SliceLen(t, 2, rows)
	must.StrHasPrefix(t, "Max Run Duration|1h (job-wide), until ", rows[0])
	must.Eq(t, "Max Run Duration|1h (job-wide), until 2026-12-07T22:50:00Z (in 50m)", rows[0])
	must.StrHasPrefix(t, "Deadline|finish by ", rows[1])

	periodic := &api.Job{Deadline: &api.JobDeadline{AfterLaunch: 90 * time.Minute}}
	must.Eq(t, []string{"Deadline|finish 1h30m after each launch"}, jobDeadlineRows(periodic, now))
}

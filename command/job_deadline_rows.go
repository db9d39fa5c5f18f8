package command

import (
	"time"

	"github.com/drover-io/drover/api"
)

// jobDeadlineRows are job status's rows for Drover's job-wide limits: the
// job's max_run_duration, with the deadline it sets for this version
// (counted from its submission), and its finish-by deadline; none for a
// job without them.
func jobDeadlineRows(job *api.Job, now time.Time) []string {
	var rows []string
	if d := job.MaxRunDuration; d != nil {
		text := exactDuration(*d) + " (job-wide)"
		if submit := deref(job.SubmitTime); submit > 0 {
			end := time.Unix(0, submit).Add(*d)
			text += ", until " + formatTime(end) + " (" + prettyTimeDiff(end, now) + ")"
		}
		rows = append(rows, "Max Run Duration|"+text)
	}
	switch d := job.Deadline; {
	case d == nil:
	case d.At > 0:
		at := time.Unix(0, d.At)
		rows = append(rows, "Deadline|finish by "+formatTime(at)+" ("+prettyTimeDiff(at, now)+")")
	case d.AfterLaunch > 0:
		rows = append(rows, "Deadline|finish "+exactDuration(d.AfterLaunch)+" after each launch")
	}
	return rows
}

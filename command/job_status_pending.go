package command

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/drover-io/drover/api"
)

// anyPendingExpired reports whether a group of the summary gave up
// placements for max_pending_duration: only then does `job status` show
// the column.
func anyPendingExpired(summary *api.JobSummary) bool {
	for _, s := range summary.Summary {
		if s.PendingExpired > 0 {
			return true
		}
	}
	return false
}

// pendingTimeoutRows lists, per evaluation and group, the placements
// given up for max_pending_duration and since when they had waited.
func pendingTimeoutRows(evals []*api.Evaluation) []string {
	var rows []string
	for _, e := range evals {
		for _, group := range slices.Sorted(maps.Keys(e.PendingExpired)) {
			n := e.PendingExpired[group]
			if n <= 0 {
				continue
			}
			if rows == nil {
				rows = []string{"Task Group|Given Up|Waiting Since|Given Up At|Reason"}
			}
			since := e.PendingSince
			if since == 0 {
				since = e.CreateTime
			}
			rows = append(rows, fmt.Sprintf("%s|%d|%s|%s|exceeded max_pending_duration",
				group, n, formatTime(time.Unix(0, since)), formatTime(time.Unix(0, e.ModifyTime))))
		}
	}
	return rows
}

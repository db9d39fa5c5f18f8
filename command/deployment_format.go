package command

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/drover-io/drover/api"
)

// deploymentRows are the key-value rows of one deployment, as Nomad's
// "deployment status" prints them.
func deploymentRows(d *api.Deployment, verbose bool) []string {
	return []string{
		"ID|" + shortID(d.ID, verbose),
		"Job ID|" + d.JobID,
		"Job Version|" + strconv.FormatUint(d.JobVersion, 10),
		"Status|" + d.Status,
		"Description|" + d.StatusDescription,
	}
}

// deploymentGroupsTable is the "Deployed" table: each group's progress.
func deploymentGroupsTable(d *api.Deployment) string {
	rows := []string{"Task Group|Auto Revert|Desired|Placed|Healthy|Unhealthy|Progress Deadline"}
	for _, name := range slices.Sorted(maps.Keys(d.TaskGroups)) {
		s := d.TaskGroups[name]
		deadline := "N/A"
		if !s.RequireProgressBy.IsZero() {
			deadline = formatTime(s.RequireProgressBy)
		}
		rows = append(rows, fmt.Sprintf("%s|%t|%d|%d|%d|%d|%s",
			name, s.AutoRevert, s.DesiredTotal, s.PlacedAllocs, s.HealthyAllocs, s.UnhealthyAllocs, deadline))
	}
	return formatList(rows)
}

// deploymentListTable is the table "deployment list" prints.
func deploymentListTable(ds []*api.Deployment, verbose bool) string {
	rows := []string{"ID|Job ID|Job Version|Status|Description"}
	for _, d := range ds {
		rows = append(rows, fmt.Sprintf("%s|%s|%d|%s|%s", shortID(d.ID, verbose), d.JobID, d.JobVersion, d.Status, d.StatusDescription))
	}
	return formatList(rows)
}

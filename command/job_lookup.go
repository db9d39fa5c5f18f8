package command

import (
	"fmt"
	"strings"

	"github.com/drover-io/drover/api"
)

// clientAndJob is apiClient, then resolveJob of id: for a command whose
// first argument is a job. False once either has told the user why not.
func (m *Meta) clientAndJob(id string) (*api.Client, *api.JobListStub, bool) {
	client, ok := m.apiClient()
	if !ok {
		return nil, nil, false
	}
	job, ok := m.resolveJob(client, id)
	return client, job, ok
}

// resolveJob finds the one job an ID or ID prefix names. When there is no
// such job, or several and none with exactly that ID, it tells the user
// (listing the candidates) and returns false.
func (m *Meta) resolveJob(client *api.Client, id string) (*api.JobListStub, bool) {
	jobs, _, err := client.Jobs().PrefixList(id)
	if err != nil {
		m.Ui.Error(apiErrorLine(client, "querying jobs", err))
		return nil, false
	}
	return resolvePrefix(m.Ui, id, "job", jobs, func(j *api.JobListStub) string { return j.ID }, jobListTable)
}

// jobListTable is the table of jobs "job status" prints without arguments.
func jobListTable(jobs []*api.JobListStub) string {
	rows := []string{"ID|Type|Priority|Status|Submit Date"}
	for _, j := range jobs {
		rows = append(rows, fmt.Sprintf("%s|%s|%d|%s|%s",
			j.ID, jobTypeString(j), j.Priority, jobStatusString(j.Status, j.Stop), formatUnixNano(j.SubmitTime)))
	}
	return formatList(rows)
}

// jobStatusString is a job's status, marked when the job was stopped: a
// stopped job reads "dead (stopped)" once its allocations are gone and
// "running (stopped)" while they are still being stopped.
func jobStatusString(status string, stop bool) string {
	if stop {
		return status + " (stopped)"
	}
	return status
}

// orNone shows an empty value as "<none>".
func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "<none>"
	}
	return s
}

// deref returns what p points to, or the zero value for nil.
func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

package nomad

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/structs"
)

// TestJobRunTimes stores allocations of known run times, finished,
// running and of a purged job of the same ID, and reads the figures.
func TestJobRunTimes(t *testing.T) {
	s := readServer(t)
	job := testJob("rt")
	budget := time.Hour
	job.TaskGroups[0].MaxRunDuration = &budget
	registerTestJob(t, s, job)
	q := QueryOptions{Namespace: structs.DefaultNamespace}
	stored, _, err := s.GetJob(testCtx(t), "rt", q)
	must.NoError(t, err)

	created := time.Unix(1_700_000_000, 0)
	finished := func(j *structs.Job, d time.Duration, status, desc string) *structs.Allocation {
		a := testAlloc(j, "node-1")
		a.CreateTime = created.UnixNano()
		a.ClientStatus, a.ClientDescription = status, desc
		a.TaskStates = map[string]*structs.TaskState{"task": {State: structs.TaskStateDead, FinishedAt: created.Add(d)}}
		return a
	}
	var allocs []*structs.Allocation
	for i := 1; i <= 10; i++ {
		allocs = append(allocs, finished(stored, time.Duration(i)*time.Minute, structs.AllocClientStatusComplete, ""))
	}
	allocs = append(allocs,
		finished(stored, time.Hour, structs.AllocClientStatusComplete, structs.AllocTimeoutReasonMaxRunDuration),
		testAlloc(stored, "node-1")) // running: not measured
	purged := stored.Copy()
	purged.CreateIndex = stored.CreateIndex - 1
	allocs = append(allocs, finished(purged, 5*time.Hour, structs.AllocClientStatusComplete, ""))
	applyLogEntry(t, s, &logentry.AllocUpdate{Allocs: allocs})

	rt, meta, err := s.JobRunTimes(testCtx(t), "rt", q)
	must.NoError(t, err)
	must.Positive(t, meta.Index)
	must.SliceLen(t, 1, rt.Groups)
	must.Eq(t, structs.RunTimeStats{
		Version: stored.Version, TaskGroup: "group", Budget: time.Hour, Count: 11,
		P50: 6 * time.Minute, P95: time.Hour, Max: time.Hour, Timeouts: 1,
	}, *rt.Groups[0])

	none, _, err := s.JobRunTimes(testCtx(t), "nope", q)
	must.NoError(t, err)
	must.Nil(t, none)
}

package state

import (
	"errors"
	"testing"

	"github.com/hashicorp/go-memdb"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// changedTables lists the table of each change, with "-" marking deletes.
func changedTables(changes memdb.Changes) []string {
	var out []string
	for _, c := range changes {
		if c.Deleted() {
			out = append(out, "-"+c.Table)
			continue
		}
		out = append(out, c.Table)
	}
	return out
}

func TestRecordChanges(t *testing.T) {
	s := newStore(t)
	job := testJob("web")
	eval := testEval(job)
	changes, err := s.RecordChanges(func() error {
		if err := s.UpsertJob(10, job); err != nil {
			return err
		}
		return s.UpsertEvals(10, []*structs.Evaluation{eval})
	})
	must.NoError(t, err)
	must.Eq(t, []string{TableJobs, TableJobVersions, TableIndex, TableIndex, TableEvals, TableIndex}, changedTables(changes))
	must.Nil(t, changes[0].Before)
	stored, err := s.JobByID(nil, job.Namespace, job.ID)
	must.NoError(t, err)
	must.True(t, changes[0].After.(*structs.Job) == stored, must.Sprint("the change is the stored object"))

	// Writes outside RecordChanges track nothing, and a purge records
	// the job as it was.
	must.NoError(t, s.UpdateJobStatus(11, job.Namespace, job.ID, structs.JobStatusRunning, ""))
	changes, err = s.RecordChanges(func() error { return s.DeleteJob(12, job.Namespace, job.ID) })
	must.NoError(t, err)
	must.Eq(t, []string{"-" + TableJobs, "-" + TableJobVersions, TableIndex, TableIndex, TableIndex}, changedTables(changes))
	must.Eq(t, structs.JobStatusRunning, changes[0].Before.(*structs.Job).Status)

	// A failed apply still returns what was committed before it failed.
	boom := errors.New("boom")
	changes, err = s.RecordChanges(func() error {
		if err := s.UpsertEvals(13, []*structs.Evaluation{testEval(job)}); err != nil {
			return err
		}
		return boom
	})
	must.ErrorIs(t, err, boom)
	must.Eq(t, []string{TableEvals, TableIndex}, changedTables(changes))
}

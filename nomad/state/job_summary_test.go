package state

import (
	"testing"
	"testing/synctest"

	"github.com/drover-io/drover/structs"
	"github.com/hashicorp/go-memdb"
	"github.com/shoenig/test/must"
)

func TestJobSummaryByID(t *testing.T) {
	s := newStore(t)
	job := testJob("example")
	job.TaskGroups = append(job.TaskGroups, &structs.TaskGroup{Name: "db", Count: 1})
	job = mustUpsertJob(t, s, 10, job)

	// An alloc left from an earlier job of the same ID does not count.
	stale := testAlloc(job, "eval-0", "node-1")
	stale.Job = testJob("example")
	stale.Job.CreateIndex = 3

	var allocs []*structs.Allocation
	for range 6 {
		allocs = append(allocs, testAlloc(job, "eval-1", "node-1"))
	}
	dbAlloc := testAlloc(job, "eval-1", "node-1")
	dbAlloc.TaskGroup = "db"
	must.NoError(t, s.UpsertAllocs(20, append(allocs, stale, dbAlloc)))
	var updates []*structs.Allocation
	for i, status := range []string{
		structs.AllocClientStatusRunning,
		structs.AllocClientStatusRunning,
		structs.AllocClientStatusComplete,
		structs.AllocClientStatusFailed,
		structs.AllocClientStatusLost,
		// allocs[5] stays pending
	} {
		updates = append(updates, &structs.Allocation{ID: allocs[i].ID, ClientStatus: status})
	}
	updates = append(updates, &structs.Allocation{ID: dbAlloc.ID, ClientStatus: structs.AllocClientStatusUnknown})
	must.NoError(t, s.UpdateAllocsFromClient(21, updates))

	older, newer, unprocessed := testEval(job), testEval(job), testEval(job)
	older.QueuedAllocations = map[string]int{"web": 5, "db": 5}
	newer.QueuedAllocations = map[string]int{"web": 2, "gone": 1}
	must.NoError(t, s.UpsertEvals(22, []*structs.Evaluation{older}))
	must.NoError(t, s.UpsertEvals(23, []*structs.Evaluation{newer}))
	must.NoError(t, s.UpsertEvals(24, []*structs.Evaluation{unprocessed}))

	got, err := s.JobSummaryByID(nil, job.Namespace, job.ID)
	must.NoError(t, err)
	must.Eq(t, &structs.JobSummary{
		JobID:     job.ID,
		Namespace: job.Namespace,
		Summary: map[string]structs.TaskGroupSummary{
			"web": {Queued: 2, Starting: 1, Running: 2, Complete: 1, Failed: 1, Lost: 1},
			"db":  {Unknown: 1},
		},
		CreateIndex: 10,
		ModifyIndex: 23,
	}, got)

	stopped := testJob("example")
	stopped.TaskGroups = job.TaskGroups
	stopped.Stop = true
	mustUpsertJob(t, s, 30, stopped)
	got, err = s.JobSummaryByID(nil, job.Namespace, job.ID)
	must.NoError(t, err)
	must.Eq(t, 0, got.Summary["web"].Queued, must.Sprint("a stopped job has nothing queued"))
	must.Eq(t, 30, got.ModifyIndex)

	missing, err := s.JobSummaryByID(nil, job.Namespace, "missing")
	must.NoError(t, err)
	must.Nil(t, missing)
}

func TestJobSummaryByID_Children(t *testing.T) {
	s := newStore(t)
	parent := testJob("cron")
	parent.Periodic = &structs.PeriodicConfig{Enabled: true, Spec: "* * * * *", SpecType: structs.PeriodicSpecCron}
	mustUpsertJob(t, s, 10, parent)

	got, err := s.JobSummaryByID(nil, parent.Namespace, parent.ID)
	must.NoError(t, err)
	must.Eq(t, &structs.JobChildrenSummary{}, got.Children)

	for i, status := range []string{structs.JobStatusPending, structs.JobStatusRunning, structs.JobStatusDead, structs.JobStatusDead} {
		child := testJob("cron/periodic-" + string(rune('a'+i)))
		child.ParentID = parent.ID
		child.Status = status
		mustUpsertJob(t, s, uint64(20+i), child)
	}
	got, err = s.JobSummaryByID(nil, parent.Namespace, parent.ID)
	must.NoError(t, err)
	must.Eq(t, &structs.JobChildrenSummary{Pending: 1, Running: 1, Dead: 2}, got.Children)
	must.Eq(t, 23, got.ModifyIndex)

	plain := mustUpsertJob(t, s, 30, testJob("plain"))
	got, err = s.JobSummaryByID(nil, plain.Namespace, plain.ID)
	must.NoError(t, err)
	must.Nil(t, got.Children)
}

func TestJobSummaryByID_WakesOnClientUpdate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore(t)
		job := mustUpsertJob(t, s, 10, testJob("example"))
		alloc := testAlloc(job, "eval-1", "node-1")
		must.NoError(t, s.UpsertAllocs(11, []*structs.Allocation{alloc}))

		query := func(ws memdb.WatchSet, s *StateStore) (any, uint64, error) {
			summary, err := s.JobSummaryByID(ws, structs.DefaultNamespace, "example")
			if err != nil {
				return nil, 0, err
			}
			return summary, summary.ModifyIndex, nil
		}
		done := startQuery(t.Context(), s, 11, query)
		synctest.Wait()
		must.NoError(t, s.UpdateAllocsFromClient(12, []*structs.Allocation{{
			ID: alloc.ID, ClientStatus: structs.AllocClientStatusRunning,
		}}))
		synctest.Wait()
		select {
		case r := <-done:
			must.NoError(t, r.err)
			must.Eq(t, 12, r.index)
			must.Eq(t, 1, r.resp.(*structs.JobSummary).Summary["web"].Running)
		default:
			t.Fatal("not woken by a client update of the job's allocation")
		}
	})
}

package state

import (
	"fmt"
	"sync"
	"testing"

	"github.com/drover-io/drover/structs"
	"github.com/shoenig/test"
	"github.com/shoenig/test/must"
)

// TestConcurrentReadersAndWriter is meant for -race: readers walk the
// tables and read what they got while one writer changes them. Readers
// report with package test: FailNow may not run off the test goroutine.
func TestConcurrentReadersAndWriter(t *testing.T) {
	s := newStore(t)
	job := mustUpsertJob(t, s, 1, testJob("example"))

	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				jobs, err := s.Jobs(nil)
				test.NoError(t, err)
				for _, j := range jobs {
					_ = fmt.Sprint(j.Version, j.Status, len(j.TaskGroups))
				}
				allocs, err := s.AllocsByJob(nil, job.Namespace, job.ID)
				test.NoError(t, err)
				for _, a := range allocs {
					_ = fmt.Sprint(a.ClientStatus, a.Job.Version, len(a.TaskStates))
				}
				_, err = s.JobSummaryByID(nil, job.Namespace, job.ID)
				test.NoError(t, err)
			}
		})
	}

	for i := range 200 {
		index := uint64(10 + 3*i)
		next := testJob("example")
		next.Priority = i
		must.NoError(t, s.UpsertJob(index, next))
		alloc := testAlloc(job, "eval-1", "node-1")
		must.NoError(t, s.UpsertAllocs(index+1, []*structs.Allocation{alloc}))
		must.NoError(t, s.UpdateAllocsFromClient(index+2, []*structs.Allocation{{
			ID: alloc.ID, ClientStatus: structs.AllocClientStatusRunning,
			TaskStates: map[string]*structs.TaskState{"sleep": {State: structs.TaskStateRunning}},
		}}))
	}
	close(stop)
	wg.Wait()

	allocs, err := s.Allocs(nil)
	must.NoError(t, err)
	must.Len(t, 200, allocs)
}

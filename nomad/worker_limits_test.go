package nomad

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/structs"
)

// A job stored beyond this server's limits (by a server with higher ones,
// or before they were lowered) is not scheduled: the scheduler would
// build a placement per allocation, and a count of a billion exhausted the
// leader's memory, and every new leader's after it.
func TestWorker_refusesAStoredJobBeyondTheLimits(t *testing.T) {
	srv := startServer(t, testConfig(t, "limits"))
	waitForLeader(t, srv)
	job := testJob("billion")
	job.TaskGroups[0].Count = 1_000_000_000
	eval := testEval(job.ID)

	heapBefore := heapAlloc()
	// Straight into raft, past the checks a register makes.
	_, err := srv.raftApply(testCtx(t), logentry.MsgJobRegister, &logentry.JobRegister{Job: job, Eval: eval})
	must.NoError(t, err)

	waitfor.NoError(t, "the evaluation failed, naming the limit", func() error {
		stored, err := srv.State().EvalByID(nil, eval.ID)
		switch {
		case err != nil:
			return err
		case stored == nil:
			return errors.New("no eval")
		case stored.Status != structs.EvalStatusFailed:
			return fmt.Errorf("eval status %q", stored.Status)
		}
		want := `job "billion" exceeds this server's limits and is not scheduled: Task group "group": count 1000000000 is more than the limit of 50000 allocations per job (limits.job_max_count)`
		if stored.StatusDescription != want {
			return fmt.Errorf("description %q", stored.StatusDescription)
		}
		return nil
	})
	growth := int64(heapAlloc()) - int64(heapBefore)
	t.Logf("heap growth: %d bytes", growth)
	must.Less(t, int64(32<<20), growth)

	// A stopped job is still scheduled, to stop what it has.
	stopped := job.Copy()
	stopped.Stop = true
	stopEval := testEval(job.ID)
	_, err = srv.raftApply(testCtx(t), logentry.MsgJobRegister, &logentry.JobRegister{Job: stopped, Eval: stopEval})
	must.NoError(t, err)
	waitfor.NoError(t, "the stopped job's evaluation complete", func() error {
		stored, err := srv.State().EvalByID(nil, stopEval.ID)
		if err != nil || stored == nil || stored.Status != structs.EvalStatusComplete {
			return fmt.Errorf("eval %v: %v", stored, err)
		}
		return nil
	})
}

// Raft.Apply, the door other servers forward raw entries through, holds a
// job to the limits as a register does.
func TestApply_holdsJobsToTheLimits(t *testing.T) {
	srv := startServer(t, testConfig(t, "apply"))
	waitForLeader(t, srv)
	job := testJob("billion")
	job.TaskGroups[0].Count = 1_000_000_000
	_, err := srv.Apply(testCtx(t), logentry.MsgJobRegister, &logentry.JobRegister{Job: job})
	must.ErrorIs(t, err, ErrInvalidRequest)
	must.True(t, strings.Contains(err.Error(), "limits.job_max_count"), must.Sprint(err))
}

func heapAlloc() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

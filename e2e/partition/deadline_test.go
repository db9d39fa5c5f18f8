package partition

import (
	"fmt"
	"testing"
	"time"

	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/jobspec2"
)

// budget is the max_run_duration of the allocation that runs through
// each fault: its deadline falls in the middle of the fault, which starts
// some seconds after the allocation does.
const budget = 7 * time.Second

// killWithin is how late, at most, a task may end after its allocation's
// deadline, whatever the network does: the client's own timer kills it.
const killWithin = time.Second

// exceeded is the description of an allocation ended by its deadline.
const exceeded = "allocation exceeded max_run_duration"

const deadlineJob = `job %q {
  type = "batch"
  group "g" {
    max_run_duration = %q
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/sleep"
        args    = ["1000"]
      }
    }
  }
}`

// runDeadlineJob registers a job whose one allocation runs until its
// max_run_duration kills it, waits until it runs on the client, and
// returns the allocation's ID and its deadline.
func (c *cluster) runDeadlineJob(t *testing.T, id string) (string, time.Time) {
	t.Helper()
	job, err := jobspec2.ParseWithConfig(&jobspec2.ParseConfig{
		Path: id + ".hcl",
		Body: fmt.Appendf(nil, deadlineJob, id, budget.String()),
	})
	must.NoError(t, err)
	s := c.servers[0]
	_, _, err = s.api.Jobs().Register(job, nil)
	must.NoError(t, err)
	var alloc *api.Allocation
	waitfor.NoError(t, "the allocation of "+id+" to run", func() error {
		stubs, _, err := s.api.Jobs().Allocations(id, true, nil)
		if err != nil {
			return err
		}
		if len(stubs) != 1 || stubs[0].ClientStatus != api.AllocClientStatusRunning {
			return fmt.Errorf("%w: %d allocations", errNotYet, len(stubs))
		}
		alloc, _, err = s.api.Allocations().Info(stubs[0].ID, nil)
		return err
	}, wait.Timeout(readyTimeout), wait.Gap(50*time.Millisecond))
	must.Eq(t, alloc.CreateTime+int64(budget), alloc.MaxRunDeadline)
	return alloc.ID, time.Unix(0, alloc.MaxRunDeadline)
}

// lateness is how long after its deadline the allocation's task was
// killed and ended, from its task events, once the servers know it ended.
type lateness struct {
	killing, ended time.Duration
}

func (l lateness) String() string {
	return fmt.Sprintf("Killing event %s, task ended %s after the deadline", ms(l.killing), ms(l.ended))
}

// measureLateness waits until the allocation has ended and returns how
// late its task was killed.
func (c *cluster) measureLateness(t *testing.T, allocID string, deadline time.Time) lateness {
	t.Helper()
	var alloc *api.Allocation
	waitfor.NoError(t, "allocation "+allocID+" to end", func() error {
		var err error
		alloc, _, err = c.servers[0].api.Allocations().Info(allocID, nil)
		if err != nil {
			return err
		}
		switch alloc.ClientStatus {
		case api.AllocClientStatusComplete, api.AllocClientStatusFailed, api.AllocClientStatusLost:
			return nil
		}
		return fmt.Errorf("%w: client status %s", errNotYet, alloc.ClientStatus)
	}, wait.Timeout(readyTimeout), wait.Gap(100*time.Millisecond))
	must.Eq(t, api.AllocClientStatusComplete, alloc.ClientStatus, must.Sprintf("allocation %s: %s", allocID, alloc.ClientDescription))
	must.Eq(t, exceeded, alloc.ClientDescription)
	ts := alloc.TaskStates["t"]
	must.NotNil(t, ts)
	var killing *api.TaskEvent
	for _, ev := range ts.Events {
		if ev.Type == "Killing" && killing == nil {
			killing = ev
		}
	}
	must.NotNil(t, killing, must.Sprintf("task events: %v", eventTypes(ts)))
	return lateness{
		killing: time.Unix(0, killing.Time).Sub(deadline),
		ended:   ts.FinishedAt.Sub(deadline),
	}
}

func eventTypes(ts *api.TaskState) []string {
	var out []string
	for _, ev := range ts.Events {
		out = append(out, ev.Type)
	}
	return out
}

// ms rounds d to the millisecond, for figures.
func ms(d time.Duration) time.Duration { return d.Round(time.Millisecond) }

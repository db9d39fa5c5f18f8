package command

import (
	"context"
	"fmt"

	"github.com/drover-io/drover/api"
)

// exitPendingTimeout says, for `job run -wait` and `job dispatch -wait`,
// that the job finished with placements given up because they waited
// longer than max_pending_duration, and no allocation failed otherwise.
const exitPendingTimeout = 5

// waitsForPlacement reports whether the job bounds how long its
// placements may wait (max_pending_duration on the job or a group): a
// placement that failed then waits in a blocked evaluation until it is
// made or given up, which -wait follows instead of exiting 2.
func waitsForPlacement(job *api.Job) bool {
	if job == nil {
		return false
	}
	if job.MaxPendingDuration != nil {
		return true
	}
	for _, tg := range job.TaskGroups {
		if tg != nil && tg.MaxPendingDuration != nil {
			return true
		}
	}
	return false
}

// waitsForPlacement is waitsForPlacement of the job as the server holds
// it (a dispatched child, known here by its ID alone), or as submitted
// when it cannot be read.
func (m *evalMonitor) waitsForPlacement(ctx context.Context, job *api.Job) bool {
	if waitsForPlacement(job) {
		return true
	}
	q := (&api.QueryOptions{Namespace: deref(job.Namespace)}).WithContext(ctx)
	stored, _, err := m.client.Jobs().Info(deref(job.ID), q)
	return err == nil && waitsForPlacement(stored)
}

// pendingExpired counts the placements of this instance of the job
// (created at jobCreateIndex or later) given up for max_pending_duration.
func (w *jobWaiter) pendingExpired(ctx context.Context, jobCreateIndex uint64) (int, error) {
	evals, _, err := w.client.Jobs().Evaluations(w.jobID, w.query(ctx, 0))
	if api.IsNotFound(err) {
		return 0, nil // purged as it ended: how its allocations ended still counts
	}
	if err != nil {
		return 0, err
	}
	total := 0
	for _, e := range evals {
		if e.CreateIndex < jobCreateIndex {
			continue
		}
		for _, n := range e.PendingExpired {
			total += n
		}
	}
	return total, nil
}

// finishPending is finish, with the placements given up for
// max_pending_duration: they are reported, and exit 5 unless an
// allocation failed or was stopped (exit 1 over 5, 5 over 3 and 0).
func (w *jobWaiter) finishPending(latest []*api.AllocationListStub, expired int) int {
	if expired == 0 {
		return w.finish(latest)
	}
	noun := "placements"
	if expired == 1 {
		noun = "placement"
	}
	w.event("%d %s given up: exceeded max_pending_duration", expired, noun)
	code := exitOK
	if len(latest) > 0 {
		code = w.finish(latest)
	} else {
		w.headline("Job %q finished without allocations", w.jobID)
	}
	if code == exitError {
		return code
	}
	w.headline("%s", fmt.Sprintf("Job %q exceeded max_pending_duration", w.jobID))
	return exitPendingTimeout
}

package command

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/hashicorp/cli"

	"github.com/drover-io/drover/api"
)

// Exit codes of the commands that submit work and follow its evaluation.
const (
	exitOK = 0
	// exitError is any failure: bad input, an unreachable agent, a
	// refused request, a failed evaluation.
	exitError = 1
	// exitPlacementFailure says that the job was accepted but the scheduler
	// could not place all of its allocations.
	exitPlacementFailure = 2
	// exitInterrupted says that the user stopped the monitor (Ctrl-C); the
	// evaluation goes on without it.
	exitInterrupted = 130
)

const (
	// monitorWait is how long one blocking query on an evaluation waits
	// for it to change before asking again.
	monitorWait = 5 * time.Minute
	// monitorPollInterval paces the monitor when the agent answers without
	// an index, so that its queries cannot block: it then polls instead.
	monitorPollInterval = time.Second
)

// evalMonitor follows an evaluation until the scheduler is done with it,
// printing what happens: the allocations it placed, its status changes, why
// it could not place allocations, and the evaluations it chains to.
type evalMonitor struct {
	ui     cli.Ui
	client *api.Client
	// verbose prints full IDs instead of their first 8 characters.
	verbose bool
	// wait is the longest a single blocking query waits.
	wait time.Duration
	now  func() time.Time
}

func newEvalMonitor(ui cli.Ui, client *api.Client, verbose bool) *evalMonitor {
	return &evalMonitor{ui: ui, client: client, verbose: verbose, wait: monitorWait, now: time.Now}
}

// monitor follows evalID, and the evaluations it chains to through
// NextEval, until each has finished. It blocks on the agent, never spins:
// an evaluation that no scheduler picks up keeps it waiting until ctx is
// cancelled. It returns the command's exit code.
func (m *evalMonitor) monitor(ctx context.Context, evalID string) int {
	m.headline("Monitoring evaluation %q", m.id(evalID))
	code := exitOK
	for {
		eval, rc := m.follow(ctx, evalID)
		code = worseExit(code, rc)
		if eval == nil || eval.NextEval == "" {
			return code
		}
		evalID = eval.NextEval
		if eval.Wait > 0 {
			m.headline("Monitoring next evaluation %q in %s", m.id(evalID), exactDuration(eval.Wait))
		} else {
			m.headline("Monitoring next evaluation %q", m.id(evalID))
		}
	}
}

// worseExit picks the exit code that tells the user more: any failure over
// success, and an interruption over everything.
func worseExit(a, b int) int {
	rank := func(c int) int {
		switch c {
		case exitOK:
			return 0
		case exitPlacementFailure:
			return 1
		case exitInterrupted:
			return 3
		default:
			return 2
		}
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// follow watches one evaluation until it is terminal and returns it with
// the exit code its outcome means; a nil evaluation means that the monitor
// stopped early.
func (m *evalMonitor) follow(ctx context.Context, evalID string) (*api.Evaluation, int) {
	// An evaluation the monitor is asked to follow was just created, so it
	// starts out pending; reporting the change from there makes the output
	// the same however fast the scheduler is.
	status := api.EvalStatusPending
	seenAllocs := map[string]bool{}
	var index uint64
	for first := true; ; first = false {
		q := (&api.QueryOptions{WaitIndex: index, WaitTime: m.wait}).WithContext(ctx)
		eval, qm, err := m.client.Evaluations().Info(evalID, q)
		if err != nil {
			return nil, m.queryFailed(ctx, evalID, err)
		}
		if first {
			m.describeTrigger(eval)
		}
		if err := m.reportAllocs(ctx, eval, seenAllocs); err != nil {
			return nil, m.queryFailed(ctx, evalID, err)
		}
		if eval.Status != status {
			m.event("Evaluation status changed: %q -> %q", status, eval.Status)
			status = eval.Status
		}
		if evalTerminal(eval.Status) {
			return eval, m.finish(eval)
		}
		if qm.LastIndex == 0 {
			// No index, no blocking: poll instead.
			select {
			case <-ctx.Done():
				return nil, m.queryFailed(ctx, evalID, ctx.Err())
			case <-time.After(monitorPollInterval):
			}
		}
		index = qm.LastIndex
	}
}

// evalTerminal reports whether the scheduler is done with an evaluation.
func evalTerminal(status string) bool {
	switch status {
	case api.EvalStatusComplete, api.EvalStatusFailed, api.EvalStatusCancelled:
		return true
	}
	return false
}

func (m *evalMonitor) describeTrigger(eval *api.Evaluation) {
	switch {
	case eval.NodeID != "":
		m.event("Evaluation triggered by node %q", m.id(eval.NodeID))
	case eval.JobID != "":
		m.event("Evaluation triggered by job %q", eval.JobID)
	}
	if eval.DeploymentID != "" {
		m.event("Evaluation within deployment: %q", m.id(eval.DeploymentID))
	}
}

// reportAllocs prints the allocations of eval not printed before, oldest
// first: "created" for those eval placed, "modified" for older ones it
// changed.
func (m *evalMonitor) reportAllocs(ctx context.Context, eval *api.Evaluation, seen map[string]bool) error {
	allocs, _, err := m.client.Evaluations().Allocations(eval.ID, (&api.QueryOptions{}).WithContext(ctx))
	if err != nil {
		return err
	}
	slices.SortFunc(allocs, func(a, b *api.AllocationListStub) int {
		if a.CreateIndex != b.CreateIndex {
			return cmp.Compare(a.CreateIndex, b.CreateIndex)
		}
		return cmp.Compare(a.ID, b.ID)
	})
	for _, a := range allocs {
		if seen[a.ID] {
			continue
		}
		seen[a.ID] = true
		verb := "created"
		if a.CreateIndex < eval.CreateIndex {
			verb = "modified"
		}
		m.event("Allocation %q %s: node %q, group %q", m.id(a.ID), verb, m.id(a.NodeID), a.TaskGroup)
	}
	return nil
}

// finish reports how a terminal evaluation ended and returns the exit code
// that outcome means.
func (m *evalMonitor) finish(eval *api.Evaluation) int {
	code := exitOK
	if eval.Status == api.EvalStatusFailed {
		code = exitError
	}
	if len(eval.FailedTGAllocs) == 0 {
		m.headline("Evaluation %q finished with status %q", m.id(eval.ID), eval.Status)
	} else {
		code = worseExit(code, exitPlacementFailure)
		m.headline("Evaluation %q finished with status %q but failed to place all allocations:", m.id(eval.ID), eval.Status)
		for _, f := range placementFailures(eval.FailedTGAllocs, m.verbose) {
			m.event("%s", f.Header)
			for _, r := range f.Reasons {
				m.ui.Output("      * " + r)
			}
		}
		if eval.BlockedEval != "" {
			m.event("Evaluation %q waiting for additional capacity to place remainder", m.id(eval.BlockedEval))
		}
	}
	if eval.Status != api.EvalStatusComplete && eval.StatusDescription != "" {
		m.event("Evaluation status description: %s", eval.StatusDescription)
	}
	return code
}

// queryFailed reports why the monitor stopped and returns its exit code.
func (m *evalMonitor) queryFailed(ctx context.Context, evalID string, err error) int {
	switch {
	case ctx.Err() != nil:
		m.headline("Monitoring interrupted: evaluation %q goes on without it", m.id(evalID))
		return exitInterrupted
	case api.IsNotFound(err):
		m.ui.Error(fmt.Sprintf("No evaluation with id %q found", evalID))
	default:
		m.ui.Error(apiErrorLine(m.client, "reading evaluation", err))
	}
	return exitError
}

// headline prints a line that starts a step: "==> <time>: ...".
func (m *evalMonitor) headline(format string, args ...any) {
	m.ui.Output(fmt.Sprintf("==> %s: %s", formatTime(m.now()), fmt.Sprintf(format, args...)))
}

// event prints a line within a step: "    <time>: ...".
func (m *evalMonitor) event(format string, args ...any) {
	m.ui.Output(fmt.Sprintf("    %s: %s", formatTime(m.now()), fmt.Sprintf(format, args...)))
}

func (m *evalMonitor) id(id string) string {
	if m.verbose {
		return id
	}
	return limit(id, shortIDLength)
}

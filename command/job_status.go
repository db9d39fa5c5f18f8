package command

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/drover-io/drover/api"
)

// JobStatusCommand lists the jobs, or shows one job in detail.
type JobStatusCommand struct{ Meta }

func (c *JobStatusCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover job status [options] [job]

  Without a job, lists every job. With a job ID, or a unique prefix of one,
  shows the job: its settings, how many of its allocations are in each
  state per task group, why the scheduler could not place allocations (if
  it could not), and its allocations.

  When any of the allocations belongs to a batch or sysbatch group with a
  max_run_duration, the allocation table has a Deadline column: when the
  allocation's budget ends (CreateTime + max_run_duration), relative ("in
  7s", "3s ago"), or absolute with -verbose; "-" for an allocation
  without one, "not reached" for one that ended before it.

  An allocation the deadline stopped shows its status as "complete
  (max_run_duration)" (or "failed (max_run_duration)" with
  max_run_outcome = "failed"), never as a plain "complete".
` + clientOptionsHelp + `
Status Options:

  -short
    Show only the job's settings, not its summary and allocations.

  -evals
    Also list the job's evaluations.

  -all-allocs
    List the allocations of every version of the job, not only of the
    current one.

  -verbose
    Show full IDs and absolute times, deadlines included.
`)
}

func (c *JobStatusCommand) Synopsis() string { return "Display the status of jobs" }

func (c *JobStatusCommand) Run(args []string) int {
	var view jobStatusView
	fs := c.ClientFlagSet("job status")
	fs.BoolVar(&view.short, "short", false, "")
	fs.BoolVar(&view.evals, "evals", false, "")
	fs.BoolVar(&view.allAllocs, "all-allocs", false, "")
	fs.BoolVar(&view.verbose, "verbose", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() > 1 {
		return usageError(c.Ui, "job status", "This command takes at most one argument: [job]")
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	if fs.NArg() == 0 {
		return c.list(client)
	}
	stub, ok := c.resolveJob(client, fs.Arg(0))
	if !ok {
		return exitError
	}
	view.Meta = &c.Meta
	view.client = client
	view.now = time.Now()
	return view.show(stub)
}

func (c *JobStatusCommand) list(client *api.Client) int {
	jobs, _, err := client.Jobs().List(nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "querying jobs", err))
		return exitError
	}
	if len(jobs) == 0 {
		c.Ui.Output("No running jobs")
		return exitOK
	}
	c.Ui.Output(jobListTable(jobs))
	return exitOK
}

// jobStatusView prints one job; its fields are the command's flags and
// what every section needs.
type jobStatusView struct {
	*Meta
	client *api.Client
	now    time.Time

	short, evals, allAllocs, verbose bool
}

func (v *jobStatusView) show(stub *api.JobListStub) int {
	job, _, err := v.client.Jobs().Info(stub.ID, nil)
	if err != nil {
		v.Ui.Error(apiErrorLine(v.client, "querying job", err))
		return exitError
	}
	rows := v.jobRows(job, stub.ParameterizedJob)
	if launchesPeriodically(job) {
		skip, err := v.skippedLaunchRow(job)
		if err != nil {
			v.Ui.Error(apiErrorLine(v.client, "querying job evaluations", err))
			return exitError
		}
		rows = append(rows, skip...)
	}
	v.Ui.Output(formatKV(rows))
	if v.short {
		return exitOK
	}
	if err := v.showSummary(job, stub.ParameterizedJob); err != nil {
		v.Ui.Error(apiErrorLine(v.client, "querying job summary", err))
		return exitError
	}
	if job.IsParameterized() {
		if err := v.showChildren(job, "/dispatch-", "Dispatched Jobs", "No dispatched instances of parameterized job found"); err != nil {
			v.Ui.Error(apiErrorLine(v.client, "querying dispatched jobs", err))
			return exitError
		}
		return exitOK
	}
	if launchesPeriodically(job) {
		if err := v.showChildren(job, "/periodic-", "Previously Launched Jobs", "No instances of periodic job found"); err != nil {
			v.Ui.Error(apiErrorLine(v.client, "querying periodic launches", err))
			return exitError
		}
		return exitOK
	}
	if err := v.showRunTimes(job); err != nil {
		v.Ui.Error(apiErrorLine(v.client, "querying job run times", err))
		return exitError
	}
	if err := v.showEvaluations(job); err != nil {
		v.Ui.Error(apiErrorLine(v.client, "querying job evaluations", err))
		return exitError
	}
	if err := v.showAllocations(job); err != nil {
		v.Ui.Error(apiErrorLine(v.client, "querying job allocations", err))
		return exitError
	}
	return exitOK
}

func (v *jobStatusView) jobRows(job *api.Job, parameterized bool) []string {
	rows := []string{
		"ID|" + deref(job.ID),
		"Name|" + deref(job.Name),
		"Submit Date|" + formatUnixNano(deref(job.SubmitTime)),
		"Type|" + deref(job.Type),
		"Priority|" + strconv.Itoa(deref(job.Priority)),
		"Datacenters|" + strings.Join(job.Datacenters, ","),
		"Namespace|" + deref(job.Namespace),
		"Node Pool|" + deref(job.NodePool),
		"Status|" + jobStatusString(deref(job.Status), deref(job.Stop)),
		"Periodic|" + strconv.FormatBool(job.IsPeriodic()),
		"Parameterized|" + strconv.FormatBool(parameterized),
	}
	if launchesPeriodically(job) {
		rows = append(rows, "Next Periodic Launch|"+v.nextLaunchText(job))
	}
	rows = append(rows, jobDeadlineRows(job, v.now)...)
	return append(rows, gcRows(job)...)
}

// gcRows are Drover's garbage collection and overlap settings of a job,
// each shown only when the job sets it, so that a Nomad job's status
// reads as Nomad's.
func gcRows(job *api.Job) []string {
	var rows []string
	if p := job.Periodic; p != nil {
		if p.Overlap != nil {
			rows = append(rows, "Overlap|"+*p.Overlap)
		}
		if p.KeepLast != nil {
			rows = append(rows, "Keep Last|"+strconv.Itoa(*p.KeepLast)+" dead children")
		}
	}
	if job.TTLAfterFinished != nil {
		rows = append(rows, "TTL After Finished|"+job.TTLAfterFinished.String())
	}
	return rows
}

func (v *jobStatusView) nextLaunchText(job *api.Job) string {
	if deref(job.Stop) {
		return "none (job stopped)"
	}
	next, err := nextLaunch(job.Periodic, v.now)
	switch {
	case err != nil:
		return "unknown: " + err.Error()
	case next.IsZero():
		return "none"
	}
	return fmt.Sprintf("%s (%s from now)", formatTime(next), formatDuration(next.Sub(v.now)))
}

// skippedLaunchPrefix begins the StatusDescription of the evaluation the
// server records a periodic job's last skipped launch with (its
// CreateTime is the launch's time); the reason follows.
const skippedLaunchPrefix = "launch skipped: "

// skippedLaunchRow says when a periodic job last skipped a launch and
// why (prohibit_overlap), or nothing if it never did.
func (v *jobStatusView) skippedLaunchRow(job *api.Job) ([]string, error) {
	evals, _, err := v.client.Jobs().Evaluations(deref(job.ID), nil)
	if err != nil {
		return nil, err
	}
	for _, e := range evals {
		reason, skipped := strings.CutPrefix(e.StatusDescription, skippedLaunchPrefix)
		if !skipped || e.TriggeredBy != "periodic-job" || e.Status != "canceled" {
			continue
		}
		at := time.Unix(0, e.CreateTime)
		return []string{fmt.Sprintf("Last Skipped Launch|%s (%s): %s (evaluation %s)",
			formatTime(at), prettyTimeDiff(at, v.now), reason, shortID(e.ID, v.verbose))}, nil
	}
	return nil, nil
}

// showSummary prints the allocation counts per group and, for a job that
// launches children, how many of them are in each state.
func (v *jobStatusView) showSummary(job *api.Job, parameterized bool) error {
	summary, _, err := v.client.Jobs().Summary(deref(job.ID), nil)
	if err != nil {
		return err
	}
	launches := job.IsPeriodic() || parameterized
	if !launches {
		rows := []string{"Task Group|Queued|Starting|Running|Failed|Complete|Lost|Unknown"}
		expired := anyPendingExpired(summary)
		if expired {
			rows[0] += "|Pending Timeout"
		}
		for _, group := range slices.Sorted(maps.Keys(summary.Summary)) {
			s := summary.Summary[group]
			row := fmt.Sprintf("%s|%d|%d|%d|%d|%d|%d|%d",
				group, s.Queued, s.Starting, s.Running, s.Failed, s.Complete, s.Lost, s.Unknown)
			if expired {
				row += fmt.Sprintf("|%d", s.PendingExpired)
			}
			rows = append(rows, row)
		}
		v.Ui.Output("\nSummary")
		v.Ui.Output(formatList(rows))
	}
	if ch := summary.Children; ch != nil && (launches || ch.Pending+ch.Running+ch.Dead > 0) {
		v.Ui.Output("\nChildren Job Summary")
		v.Ui.Output(formatList([]string{
			"Pending|Running|Dead",
			fmt.Sprintf("%d|%d|%d", ch.Pending, ch.Running, ch.Dead),
		}))
	}
	return nil
}

// showChildren lists, newest first, the children whose IDs start with the
// job's ID and idPrefix (Nomad's "/periodic-" and "/dispatch-"), under the
// heading, or none when there are none.
func (v *jobStatusView) showChildren(job *api.Job, idPrefix, heading, none string) error {
	id := deref(job.ID)
	found, _, err := v.client.Jobs().PrefixList(id + idPrefix)
	if err != nil {
		return err
	}
	var children []*api.JobListStub
	for _, j := range found {
		if j.ParentID == id {
			children = append(children, j)
		}
	}
	v.Ui.Output("\n" + heading)
	if len(children) == 0 {
		v.Ui.Output(none)
		return nil
	}
	slices.SortFunc(children, func(a, b *api.JobListStub) int { return cmp.Compare(b.SubmitTime, a.SubmitTime) })
	rows := []string{"ID|Status"}
	for _, j := range children {
		rows = append(rows, j.ID+"|"+jobStatusString(j.Status, j.Stop))
	}
	v.Ui.Output(formatList(rows))
	return nil
}

// showEvaluations prints why the scheduler last failed to place
// allocations, while that still matters, and with -evals every evaluation.
func (v *jobStatusView) showEvaluations(job *api.Job) error {
	evals, _, err := v.client.Jobs().Evaluations(deref(job.ID), nil)
	if err != nil {
		return err
	}
	slices.SortFunc(evals, func(a, b *api.Evaluation) int { return cmp.Compare(b.CreateIndex, a.CreateIndex) })
	if failed := unresolvedPlacementFailure(evals); failed != nil {
		v.Ui.Output("\nPlacement Failure")
		v.Ui.Output(formatPlacementFailures(failed.FailedTGAllocs, v.verbose))
	}
	if rows := pendingTimeoutRows(evals); len(rows) > 0 {
		v.Ui.Output("\nPending Timeout")
		v.Ui.Output(formatList(rows))
	}
	if !v.evals {
		return nil
	}
	v.Ui.Output("\nEvaluations")
	v.Ui.Output(jobEvalTable(evals, v.verbose))
	return nil
}

// unresolvedPlacementFailure returns the newest evaluation (evals are newest
// first) that failed to place allocations, if that failure still stands:
// it is the newest evaluation of all, or an evaluation is blocked waiting
// for capacity to place the rest.
func unresolvedPlacementFailure(evals []*api.Evaluation) *api.Evaluation {
	blocked := slices.ContainsFunc(evals, func(e *api.Evaluation) bool { return e.Status == api.EvalStatusBlocked })
	for i, e := range evals {
		if len(e.FailedTGAllocs) > 0 {
			if i == 0 || blocked {
				return e
			}
			return nil
		}
	}
	return nil
}

// jobEvalTable lists the evaluations of one job.
func jobEvalTable(evals []*api.Evaluation, verbose bool) string {
	rows := []string{"ID|Priority|Triggered By|Status|Placement Failures"}
	for _, e := range evals {
		rows = append(rows, fmt.Sprintf("%s|%d|%s|%s|%t",
			shortID(e.ID, verbose), e.Priority, e.TriggeredBy, e.Status, len(e.FailedTGAllocs) > 0))
	}
	return formatList(rows)
}

func (v *jobStatusView) showAllocations(job *api.Job) error {
	allocs, _, err := v.client.Jobs().Allocations(deref(job.ID), v.allAllocs, nil)
	if err != nil {
		return err
	}
	v.Ui.Output("\nAllocations")
	if len(allocs) == 0 {
		v.Ui.Output("No allocations placed")
		return nil
	}
	v.Ui.Output(allocTable(allocs, v.verbose, v.now))
	return nil
}

// allocTable lists allocations, newest first. An allocation its deadline
// stopped has its status marked (see clientStatusText). When any of them
// has a max_run_duration a Deadline column shows when it is (or was)
// stopped.
func allocTable(allocs []*api.AllocationListStub, verbose bool, now time.Time) string {
	allocs = slices.Clone(allocs)
	slices.SortFunc(allocs, func(a, b *api.AllocationListStub) int {
		return cmp.Or(cmp.Compare(b.CreateIndex, a.CreateIndex), cmp.Compare(a.ID, b.ID))
	})
	deadlines := slices.ContainsFunc(allocs, func(a *api.AllocationListStub) bool { return a.MaxRunDeadline != 0 })
	header := "ID|Node ID|Task Group|Version|Desired|Status|Created|Modified"
	if deadlines {
		header += "|Deadline"
	}
	rows := []string{header}
	for _, a := range allocs {
		row := fmt.Sprintf("%s|%s|%s|%d|%s|%s|%s|%s",
			shortID(a.ID, verbose), shortID(a.NodeID, verbose), a.TaskGroup, a.JobVersion,
			a.DesiredStatus, clientStatusText(a.ClientStatus, a.MaxRunExceeded), when(a.CreateTime, verbose, now), when(a.ModifyTime, verbose, now))
		if deadlines {
			row += "|" + deadlineText(a.MaxRunDeadline, a.ClientStatus, a.MaxRunExceeded, verbose, now)
		}
		rows = append(rows, row)
	}
	return formatList(rows)
}

// when shows a time in Unix nanoseconds: relative to now, or absolute with
// -verbose.
func when(ns int64, verbose bool, now time.Time) string {
	if verbose {
		return formatUnixNano(ns)
	}
	return prettyUnixNano(ns, now)
}

// shortID is an ID as tables show it: its first 8 characters unless
// -verbose.
func shortID(id string, verbose bool) string {
	if verbose {
		return id
	}
	return limit(id, shortIDLength)
}

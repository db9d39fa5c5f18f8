package command

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/drover-io/drover/api"
)

// JobRunCommand submits a jobspec to the cluster and follows the
// evaluation that places it, or prints the job as JSON.
type JobRunCommand struct{ Meta }

func (c *JobRunCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover job run [options] <path>

  Parses the jobspec at path ("-" reads stdin), submits it to the cluster,
  creating the job or updating it, and follows the evaluation that places
  it until the scheduler is done. Ctrl-C stops following; the job stays
  registered.

  A periodic job is not evaluated at submission: the command prints when
  it next launches instead. Nor is a parameterized job: it runs when
  dispatched ("drover job dispatch").

  With -wait, a batch or sysbatch job is then followed until it is dead,
  each allocation's end printed as it happens, and the exit code says how
  the job ended.

  Exit codes: 0 when the job was placed (with -wait: when every
  allocation completed), 2 when the scheduler could not place all of its
  allocations, 1 on any other error (with -wait: when an allocation
  failed or was stopped), 3 with -wait when max_run_duration, the
  group's or a task's, stopped an allocation and none failed otherwise,
  4 when -wait-timeout passed first, 5 with -wait when placements were
  given up for max_pending_duration and no allocation failed, 130 when
  interrupted. After 4 and 130 the job goes on. With -wait, a job with a
  max_pending_duration whose placements wait does not exit 2: it is
  followed until they are made or given up.
` + clientOptionsHelp + `
Run Options:

  -detach
    Return as soon as the job is submitted, printing the ID of its
    evaluation, instead of following the evaluation.

  -wait
    Once the job is placed, wait until it is dead, printing each
    allocation's end, and exit with the code that says how it ended: 0
    when every allocation completed, 1 when one failed, 3 when
    max_run_duration stopped one. Only for batch and sysbatch jobs. A
    failed allocation that is rescheduled counts by its replacement. An
    unchanged job that had already finished starts nothing: the command
    prints how its allocations ended and exits as above.

  -wait-timeout=<duration>
    With -wait, give up after this long (e.g. 30m), exiting 4; the job
    goes on. 0, the default, waits as long as the job runs.

  -check-index=<index>
    Submit the job only if its current job modify index is <index>, so
    that a concurrent change is not overwritten. 0 means "only if the job
    does not exist yet".

  -output
    Print the job as the JSON that "PUT /v1/jobs" takes, {"Job": ...},
    instead of submitting it.

  -verbose
    Print full IDs.

  -var 'key=value'
    Set an input variable of the jobspec; may be repeated.

  -var-file=path
    Read input variables from an HCL file; may be repeated.
`)
}

func (c *JobRunCommand) Synopsis() string { return "Run a new job or update an existing one" }

func (c *JobRunCommand) Run(args []string) int {
	var jf jobspecFlags
	var output, detach, verbose, wait bool
	var checkIndex string
	var waitTimeout time.Duration
	fs := c.ClientFlagSet("job run")
	fs.BoolVar(&output, "output", false, "")
	fs.BoolVar(&detach, "detach", false, "")
	fs.BoolVar(&wait, "wait", false, "")
	fs.DurationVar(&waitTimeout, "wait-timeout", 0, "")
	fs.BoolVar(&verbose, "verbose", false, "")
	fs.StringVar(&checkIndex, "check-index", "", "")
	fs.Var(&jf.vars, "var", "")
	fs.Var(&jf.varFiles, "var-file", "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 1 {
		return usageError(c.Ui, "job run", "This command takes one argument: <path>")
	}
	opts, err := registerOptions(checkIndex)
	if err != nil {
		c.Ui.Error(err.Error())
		return exitError
	}
	job, err := parseJobspec(fs.Arg(0), c.Stdin, jf)
	if err != nil {
		c.Ui.Error(err.Error())
		return exitError
	}
	if output {
		return c.printJSON(job)
	}
	if wait {
		if err := checkWaitable(job, detach, waitTimeout); err != nil {
			c.Ui.Error(err.Error())
			return exitError
		}
	} else if waitTimeout != 0 {
		c.Ui.Error("-wait-timeout needs -wait")
		return exitError
	}

	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	resp, _, err := client.Jobs().RegisterOpts(job, opts, nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "submitting job", err))
		return exitError
	}
	if resp.Warnings != "" {
		c.Ui.Output(jobWarnings(resp.Warnings))
	}

	if job.IsPeriodic() {
		c.Ui.Output("Job registration successful")
		c.printNextLaunch(job.Periodic, time.Now())
		return exitOK
	}
	if resp.EvalID == "" {
		// Nothing to evaluate, as for a job that only runs when dispatched.
		c.Ui.Output("Job registration successful")
		return exitOK
	}
	if detach {
		c.Ui.Output("Job registration successful")
		c.Ui.Output("Evaluation ID: " + resp.EvalID)
		return exitOK
	}
	ctx, stop := interruptContext()
	defer stop()
	if !wait {
		return newEvalMonitor(c.Ui, client, verbose).monitor(ctx, resp.EvalID)
	}
	return runAndWait(ctx, newEvalMonitor(c.Ui, client, verbose), job, resp, waitTimeout)
}

// checkWaitable refuses -wait where it could never end or makes no sense:
// a job that does not finish by itself, or one not followed at all.
func checkWaitable(job *api.Job, detach bool, timeout time.Duration) error {
	switch {
	case detach:
		return errors.New("-wait and -detach exclude each other: -detach returns at once")
	case timeout < 0:
		return fmt.Errorf("-wait-timeout must not be negative, not %s", timeout)
	case job.IsParameterized():
		return errors.New("-wait does not apply to a parameterized job: it runs only when dispatched; wait for a dispatch with 'drover job dispatch -wait'")
	case job.IsPeriodic():
		return errors.New("-wait does not apply to a periodic job: it launches a new job at each run; wait for one with 'drover job periodic force' and 'drover job status'")
	}
	switch jobType := deref(job.Type); jobType {
	case "batch", "sysbatch":
		return nil
	case "":
		jobType = "service"
		fallthrough
	default:
		return fmt.Errorf("-wait is for batch and sysbatch jobs: a %s job runs until it is stopped", jobType)
	}
}

// runAndWait follows the evaluation the submission created, if any (a
// repeated dispatch creates none), then the job's allocations until the
// job is dead, both bounded by timeout when it is not zero.
func runAndWait(ctx context.Context, m *evalMonitor, job *api.Job, resp *api.JobRegisterResponse, timeout time.Duration) int {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	w := newJobWaiter(m, deref(job.ID), deref(job.Namespace), resp.EvalCreateIndex)
	if resp.EvalID == "" {
		return w.wait(ctx)
	}
	code := m.monitor(ctx, resp.EvalID)
	if code == exitPlacementFailure && m.waitsForPlacement(ctx, job) {
		// The placements wait, bounded by max_pending_duration: follow
		// the job until they are made or given up.
		code = exitOK
	}
	if code != exitOK {
		if code == exitInterrupted && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return w.stopped(ctx, "", ctx.Err())
		}
		return code
	}
	return w.wait(ctx)
}

// registerOptions turns -check-index into register options; an empty value
// means the flag was not given.
func registerOptions(checkIndex string) (*api.RegisterOptions, error) {
	if checkIndex == "" {
		return nil, nil
	}
	index, err := strconv.ParseUint(checkIndex, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("-check-index must be a non-negative integer, not %q", checkIndex)
	}
	return &api.RegisterOptions{EnforceIndex: true, ModifyIndex: index}, nil
}

// jobWarnings formats what the server accepted but will not honour, one
// bullet per warning.
func jobWarnings(warnings string) string {
	var b strings.Builder
	b.WriteString("Job Warnings:")
	for _, w := range strings.Split(strings.TrimSpace(warnings), "\n") {
		if w = strings.TrimSpace(w); w != "" {
			b.WriteString("\n* " + w)
		}
	}
	b.WriteString("\n")
	return b.String()
}

func (c *JobRunCommand) printNextLaunch(p *api.PeriodicConfig, now time.Time) {
	next, err := nextLaunch(p, now)
	switch {
	case err != nil:
		c.Ui.Error(fmt.Sprintf("Error determining next launch time: %v", err))
	case next.IsZero():
		c.Ui.Output("No launch scheduled: the job's cron specs never fire again")
	default:
		c.Ui.Output(fmt.Sprintf("Approximate next launch time: %s (%s from now)",
			formatTime(next), formatDuration(next.Sub(now))))
	}
}

func (c *JobRunCommand) printJSON(job *api.Job) int {
	out, err := json.MarshalIndent(api.JobRegisterRequest{Job: job}, "", "    ")
	if err != nil {
		c.Ui.Error("encode job: " + err.Error())
		return exitError
	}
	c.Ui.Output(string(out))
	return exitOK
}

// interruptContext returns a context that is cancelled on SIGINT or
// SIGTERM, so that Ctrl-C ends a monitor cleanly; stop restores the default
// handling.
func interruptContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

package command

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/drover-io/drover/api"
)

// dispatchPayloadLimit is the largest payload a dispatch takes: 16 KiB,
// as Nomad's. The command checks it before sending; the server holds it.
const dispatchPayloadLimit = 16 * 1024

// JobDispatchCommand dispatches a parameterized job.
type JobDispatchCommand struct{ Meta }

func (c *JobDispatchCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover job dispatch [options] <parameterized job> [input source]

  Dispatches a parameterized job: creates a new job from it, with the
  given meta and payload, and follows the evaluation that places it, as
  "job run" does. The new job's ID, "<job>/dispatch-<time>-<id>", is
  printed first. The payload is read from the file input source names,
  or from stdin with "-"; it may be at most 16384 bytes (16 KiB).

  Exit codes: as "job run" (with -wait too): 0 when the job was placed,
  2 when the scheduler could not place all of its allocations, 1 on any
  other error; with -wait, 0 when every allocation completed, 1 when one
  failed or was stopped, 3 when max_run_duration stopped one, 4 when
  -wait-timeout passed first, 5 when placements were given up for
  max_pending_duration, 130 when interrupted.
` + clientOptionsHelp + `
Dispatch Options:

  -meta <key>=<value>
    Meta for the dispatched job; may be repeated. The parameterized job
    says which keys are required and which optional.

  -idempotency-token <token>
    A dispatch with a token an earlier dispatch of the job used creates
    nothing: the job that one created is printed again.

  -id-prefix-template <prefix>
    Put prefix in the dispatched job's ID, after "dispatch-".

  -priority <1-100>
    The dispatched job's priority instead of the parameterized job's.

  -max-run-duration <duration>
    Drover's: give every group of the dispatched job this
    max_run_duration (e.g. 30s), at most what the parameterized job's
    max_run_duration_max allows.

  -detach
    Return as soon as the job is dispatched, printing its ID and the ID
    of its evaluation, instead of following the evaluation.

  -wait
    Once the dispatched job is placed, wait until it is dead and exit
    with the code that says how it ended, as "job run -wait".

  -wait-timeout=<duration>
    With -wait, give up after this long, exiting 4; the job goes on.

  -verbose
    Print full IDs.
`)
}

func (c *JobDispatchCommand) Synopsis() string { return "Dispatch an instance of a parameterized job" }

// dispatchFlags are the command's options.
type dispatchFlags struct {
	meta                  stringSliceFlag
	token, prefix         string
	priority              int
	maxRun, waitTimeout   time.Duration
	detach, wait, verbose bool
}

func (c *JobDispatchCommand) Run(args []string) int {
	var f dispatchFlags
	fs := c.ClientFlagSet("job dispatch")
	fs.Var(&f.meta, "meta", "")
	fs.StringVar(&f.token, "idempotency-token", "", "")
	fs.StringVar(&f.prefix, "id-prefix-template", "", "")
	fs.IntVar(&f.priority, "priority", 0, "")
	fs.DurationVar(&f.maxRun, "max-run-duration", 0, "")
	fs.BoolVar(&f.detach, "detach", false, "")
	fs.BoolVar(&f.wait, "wait", false, "")
	fs.DurationVar(&f.waitTimeout, "wait-timeout", 0, "")
	fs.BoolVar(&f.verbose, "verbose", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		return usageError(c.Ui, "job dispatch", "This command takes one or two arguments: <parameterized job> [input source]")
	}
	req, err := c.dispatchRequest(fs.Arg(0), fs.Arg(1), &f)
	if err != nil {
		c.Ui.Error(err.Error())
		return exitError
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	resp, _, err := client.Jobs().Dispatch(req, &api.WriteOptions{IdempotencyToken: f.token})
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "dispatching job", err))
		return exitError
	}
	return c.follow(client, resp, &f)
}

// dispatchRequest builds the request from the arguments and flags,
// refusing what the server would refuse for certain before sending it.
func (c *JobDispatchCommand) dispatchRequest(jobID, source string, f *dispatchFlags) (*api.JobDispatchRequest, error) {
	switch {
	case f.wait && f.detach:
		return nil, fmt.Errorf("-wait and -detach exclude each other: -detach returns at once")
	case f.waitTimeout < 0:
		return nil, fmt.Errorf("-wait-timeout must not be negative, not %s", f.waitTimeout)
	case f.waitTimeout != 0 && !f.wait:
		return nil, fmt.Errorf("-wait-timeout needs -wait")
	case f.maxRun < 0:
		return nil, fmt.Errorf("-max-run-duration must be greater than zero, not %s", f.maxRun)
	}
	req := &api.JobDispatchRequest{JobID: jobID, IdPrefixTemplate: f.prefix, Priority: f.priority}
	meta, err := parseMetaFlags(f.meta)
	if err != nil {
		return nil, err
	}
	req.Meta = meta
	if f.maxRun > 0 {
		req.MaxRunDuration = &f.maxRun
	}
	if source != "" {
		if req.Payload, err = c.readPayload(source); err != nil {
			return nil, err
		}
	}
	return req, nil
}

// parseMetaFlags reads -meta key=value flags.
func parseMetaFlags(flags []string) (map[string]string, error) {
	if len(flags) == 0 {
		return nil, nil
	}
	meta := make(map[string]string, len(flags))
	for _, kv := range flags {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("-meta must be <key>=<value>, not %q", kv)
		}
		meta[k] = v
	}
	return meta, nil
}

// readPayload reads the payload from the file source names, or stdin
// for "-", refusing one past the limit without reading all of it.
func (c *JobDispatchCommand) readPayload(source string) ([]byte, error) {
	var r io.Reader
	if source == "-" {
		r = c.Stdin
		if r == nil {
			r = os.Stdin
		}
	} else {
		f, err := os.Open(source)
		if err != nil {
			return nil, fmt.Errorf("read payload: %w", err)
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, dispatchPayloadLimit+1))
	if err != nil {
		return nil, fmt.Errorf("read payload from %s: %w", source, err)
	}
	if len(data) > dispatchPayloadLimit {
		return nil, fmt.Errorf("payload from %s is more than the limit of %d bytes (16 KiB)", source, dispatchPayloadLimit)
	}
	return data, nil
}

// follow prints the dispatched job and follows it as the flags ask.
func (c *JobDispatchCommand) follow(client *api.Client, resp *api.JobDispatchResponse, f *dispatchFlags) int {
	rows := []string{"Dispatched Job ID|" + resp.DispatchedJobID}
	if resp.EvalID != "" {
		rows = append(rows, "Evaluation ID|"+shortID(resp.EvalID, f.verbose))
	}
	c.Ui.Output(formatKV(rows))
	if resp.EvalID == "" && !f.wait {
		// An earlier dispatch with the token made the job, or it is a
		// periodic job whose launches get the evaluations.
		return exitOK
	}
	if f.detach {
		return exitOK
	}
	ctx, stop := interruptContext()
	defer stop()
	m := newEvalMonitor(c.Ui, client, f.verbose)
	c.Ui.Output("")
	if !f.wait {
		return m.monitor(ctx, resp.EvalID)
	}
	// With no evaluation (an earlier dispatch with the token made the
	// job), the wait follows the job as it is.
	child := &api.Job{ID: &resp.DispatchedJobID}
	return runAndWait(ctx, m, child, &api.JobRegisterResponse{EvalID: resp.EvalID, EvalCreateIndex: resp.EvalCreateIndex}, f.waitTimeout)
}

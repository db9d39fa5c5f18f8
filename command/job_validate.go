package command

import (
	"errors"
	"strings"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent"
	"github.com/drover-io/drover/jobcheck"
	"github.com/drover-io/drover/jobspec2"
	"github.com/drover-io/drover/structs"
)

// JobValidateCommand parses and validates a jobspec locally.
type JobValidateCommand struct{ Meta }

func (c *JobValidateCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover job validate [options] <path>

  Checks that a jobspec is well formed and valid, without a server. Every
  problem found is listed, each naming the group or task it concerns. If the
  path is "-", the jobspec is read from stdin.

Options:

  -var 'key=value'
    Set an input variable of the jobspec; may be repeated.

  -var-file=path
    Read input variables from an HCL file; may be repeated.
`)
}

func (c *JobValidateCommand) Synopsis() string { return "Check a job specification for errors" }

func (c *JobValidateCommand) Run(args []string) int {
	var jf jobspecFlags
	fs := c.FlagSet("job validate")
	fs.Var(&jf.vars, "var", "")
	fs.Var(&jf.varFiles, "var-file", "")
	if err := fs.Parse(args); err != nil {
		return 1
	}
	if fs.NArg() != 1 {
		return usageError(c.Ui, "job validate", "This command takes one argument: <path>")
	}
	apiJob, err := parseJobspec(fs.Arg(0), c.Stdin, jf)
	if err != nil {
		c.Ui.Error(err.Error())
		// When the only problems are Nomad blocks Drover lacks, the rest
		// of the job is whole: its own problems are listed too.
		var perr *jobspec2.Error
		if errors.As(err, &perr) && perr.Job != nil {
			c.reportInvalid(perr.Job)
		}
		return 1
	}
	if c.reportInvalid(apiJob) {
		return 1
	}
	if warnings := agent.CanonicalJob(apiJob).Warnings(); len(warnings) > 0 {
		c.Ui.Output(jobWarnings(strings.Join(warnings, "\n")))
	}
	c.Ui.Output("Job validation successful")
	return 0
}

// reportInvalid validates the job as the server would and lists each
// problem; it reports whether there were any.
func (c *JobValidateCommand) reportInvalid(apiJob *api.Job) bool {
	err := jobcheck.Submitted(agent.CanonicalJob(apiJob), structs.JobLimits{})
	if err == nil {
		return false
	}
	c.Ui.Error("Job validation errors:")
	for _, e := range validationProblems(err) {
		c.Ui.Error("  * " + e)
	}
	return true
}

// validationProblems flattens a multi-error into one line per problem.
func validationProblems(err error) []string {
	var multi interface{ Unwrap() []error }
	if errors.As(err, &multi) {
		var out []string
		for _, e := range multi.Unwrap() {
			out = append(out, validationProblems(e)...)
		}
		return out
	}
	return []string{err.Error()}
}

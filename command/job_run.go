package command

import (
	"encoding/json"
	"strings"

	"github.com/drover-io/drover/api"
)

// JobRunCommand submits a jobspec to the cluster, or prints it as JSON.
type JobRunCommand struct{ Meta }

func (c *JobRunCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover job run [options] <path>

  Parses the jobspec at path ("-" reads stdin) and submits it to the cluster.

Run Options:

  -output
    Print the job as the JSON that "PUT /v1/jobs" takes, {"Job": ...},
    instead of submitting it.

  -var 'key=value'
    Set an input variable of the jobspec; may be repeated.

  -var-file=path
    Read input variables from an HCL file; may be repeated.
`)
}

func (c *JobRunCommand) Synopsis() string { return "Run a new job or update an existing one" }

func (c *JobRunCommand) Run(args []string) int {
	var jf jobspecFlags
	var output bool
	fs := c.FlagSet("job run")
	fs.BoolVar(&output, "output", false, "")
	fs.Var(&jf.vars, "var", "")
	fs.Var(&jf.varFiles, "var-file", "")
	if err := fs.Parse(args); err != nil {
		return 1
	}
	if fs.NArg() != 1 {
		c.Ui.Error("This command takes one argument: <path>")
		c.Ui.Error(`For additional help try 'drover job run -h'`)
		return 1
	}
	job, err := parseJobspec(fs.Arg(0), c.Stdin, jf)
	if err != nil {
		c.Ui.Error(err.Error())
		return 1
	}
	if output {
		return c.printJSON(job)
	}
	c.Ui.Error("Submitting jobs needs a running agent; use -output to print the job")
	return 1
}

func (c *JobRunCommand) printJSON(job *api.Job) int {
	out, err := json.MarshalIndent(api.JobRegisterRequest{Job: job}, "", "    ")
	if err != nil {
		c.Ui.Error("encode job: " + err.Error())
		return 1
	}
	c.Ui.Output(string(out))
	return 0
}

package command

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/drover-io/drover/api"
)

// JobInspectCommand prints a job as JSON.
type JobInspectCommand struct{ Meta }

func (c *JobInspectCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover job inspect [options] <job>

  Prints the job, given its ID or a unique prefix of one, as the server
  holds it: JSON of the form {"Job": ...}, which "PUT /v1/jobs" accepts
  back.
` + clientOptionsHelp + `
Inspect Options:

  -version=<version>
    Print this version of the job instead of the current one.
`)
}

func (c *JobInspectCommand) Synopsis() string { return "Inspect a submitted job" }

func (c *JobInspectCommand) Run(args []string) int {
	var versionFlag string
	fs := c.ClientFlagSet("job inspect")
	fs.StringVar(&versionFlag, "version", "", "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 1 {
		return usageError(c.Ui, "job inspect", "This command takes one argument: <job>")
	}
	version, err := parseVersionFlag(versionFlag)
	if err != nil {
		c.Ui.Error(err.Error())
		return exitError
	}
	client, stub, ok := c.clientAndJob(fs.Arg(0))
	if !ok {
		return exitError
	}
	job, ok := c.fetch(client, stub.ID, version)
	if !ok {
		return exitError
	}
	out, err := json.MarshalIndent(struct{ Job *api.Job }{job}, "", "    ")
	if err != nil {
		c.Ui.Error(fmt.Sprintf("Error encoding job: %v", err))
		return exitError
	}
	c.Ui.Output(string(out))
	return exitOK
}

// fetch reads the current job, or the given version of it.
func (c *JobInspectCommand) fetch(client *api.Client, jobID string, version *uint64) (*api.Job, bool) {
	if version == nil {
		job, _, err := client.Jobs().Info(jobID, nil)
		if err != nil {
			c.Ui.Error(apiErrorLine(client, "inspecting job", err))
			return nil, false
		}
		return job, true
	}
	versions, _, _, err := client.Jobs().Versions(jobID, false, nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "querying job versions", err))
		return nil, false
	}
	if match := versionsNumbered(versions, *version); len(match) > 0 {
		return match[0], true
	}
	c.Ui.Error(fmt.Sprintf("Job %q has no version %d", jobID, *version))
	return nil, false
}

package command

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/drover-io/drover/api"
)

// JobHistoryCommand lists the versions of a job.
type JobHistoryCommand struct{ Meta }

func (c *JobHistoryCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover job history [options] <job>

  Lists the versions of a job, given its ID or a unique prefix of one,
  newest first. Every change that is submitted makes a new version.
` + clientOptionsHelp + `
History Options:

  -version=<version>
    Show only this version.

  -json
    Print the versions as JSON.
`)
}

func (c *JobHistoryCommand) Synopsis() string { return "Display the versions of a job" }

func (c *JobHistoryCommand) Run(args []string) int {
	var versionFlag string
	var asJSON bool
	fs := c.ClientFlagSet("job history")
	fs.StringVar(&versionFlag, "version", "", "")
	fs.BoolVar(&asJSON, "json", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 1 {
		c.Ui.Error("This command takes one argument: <job>")
		c.Ui.Error(`For additional help try 'drover job history -h'`)
		return exitError
	}
	client, err := c.Client()
	if err != nil {
		c.Ui.Error(fmt.Sprintf("Error initializing client: %v", err))
		return exitError
	}
	stub, ok := c.resolveJob(client, fs.Arg(0))
	if !ok {
		return exitError
	}
	versions, _, _, err := client.Jobs().Versions(stub.ID, false, nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "retrieving job versions", err))
		return exitError
	}
	if versionFlag != "" {
		v, err := strconv.ParseUint(versionFlag, 10, 64)
		if err != nil {
			c.Ui.Error(fmt.Sprintf("-version must be a non-negative integer, not %q", versionFlag))
			return exitError
		}
		if versions = versionsNumbered(versions, v); len(versions) == 0 {
			c.Ui.Error(fmt.Sprintf("Job %q has no version %d", stub.ID, v))
			return exitError
		}
	}
	if asJSON {
		out, err := json.MarshalIndent(versions, "", "    ")
		if err != nil {
			c.Ui.Error(fmt.Sprintf("Error encoding job versions: %v", err))
			return exitError
		}
		c.Ui.Output(string(out))
		return exitOK
	}
	blocks := make([]string, len(versions))
	for i, job := range versions {
		blocks[i] = formatKV([]string{
			"Version|" + strconv.FormatUint(deref(job.Version), 10),
			"Stable|" + strconv.FormatBool(deref(job.Stable)),
			"Submit Date|" + formatUnixNano(deref(job.SubmitTime)),
		})
	}
	c.Ui.Output(strings.Join(blocks, "\n\n"))
	return exitOK
}

// versionsNumbered keeps the versions numbered v: one, or none.
func versionsNumbered(versions []*api.Job, v uint64) []*api.Job {
	var out []*api.Job
	for _, job := range versions {
		if deref(job.Version) == v {
			out = append(out, job)
		}
	}
	return out
}

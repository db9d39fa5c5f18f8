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

  -p
    Show, under each version, how it differs from the version before it,
    as 'drover job plan' shows a diff.

  -version=<version>
    Show only this version (with -p, and its diff).

  -json
    Print the versions as JSON. Diffs are not included, even with -p.
`)
}

func (c *JobHistoryCommand) Synopsis() string { return "Display the versions of a job" }

func (c *JobHistoryCommand) Run(args []string) int {
	var versionFlag string
	var asJSON, showDiffs bool
	fs := c.ClientFlagSet("job history")
	fs.StringVar(&versionFlag, "version", "", "")
	fs.BoolVar(&asJSON, "json", false, "")
	fs.BoolVar(&showDiffs, "p", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 1 {
		return usageError(c.Ui, "job history", "This command takes one argument: <job>")
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
	// Diffs are only asked for when they are printed.
	versions, diffs, _, err := client.Jobs().Versions(stub.ID, showDiffs && !asJSON, nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "retrieving job versions", err))
		return exitError
	}
	entries, err := pairVersionDiffs(versions, diffs)
	if err != nil {
		c.Ui.Error(fmt.Sprintf("Error reading job versions: %v", err))
		return exitError
	}
	if version != nil {
		if entries = entriesNumbered(entries, *version); len(entries) == 0 {
			c.Ui.Error(fmt.Sprintf("Job %q has no version %d", stub.ID, *version))
			return exitError
		}
	}
	if asJSON {
		return c.outputJSON(entries)
	}
	blocks := make([]string, len(entries))
	for i, e := range entries {
		blocks[i] = formatVersion(e)
	}
	c.Ui.Output(strings.Join(blocks, "\n\n"))
	return exitOK
}

// versionEntry is one version of a job and, when diffs were asked for and
// it has a predecessor, how it differs from it.
type versionEntry struct {
	job  *api.Job
	diff *api.JobDiff
}

// pairVersionDiffs pairs each version, newest first, with its diff: the
// i-th diff is how the i-th version differs from the next older one, so
// the oldest version has none. Without diffs every entry has none.
func pairVersionDiffs(versions []*api.Job, diffs []*api.JobDiff) ([]versionEntry, error) {
	if len(diffs) > 0 && len(diffs) != len(versions)-1 {
		return nil, fmt.Errorf("the agent sent %d diffs for %d versions; want one fewer diff than versions", len(diffs), len(versions))
	}
	entries := make([]versionEntry, len(versions))
	for i, job := range versions {
		entries[i].job = job
		if i < len(diffs) {
			entries[i].diff = diffs[i]
		}
	}
	return entries, nil
}

// entriesNumbered keeps the version numbered v: one entry, or none.
func entriesNumbered(entries []versionEntry, v uint64) []versionEntry {
	var out []versionEntry
	for _, e := range entries {
		if deref(e.job.Version) == v {
			out = append(out, e)
		}
	}
	return out
}

// formatVersion renders a version's key facts and, when it has one, its
// diff below them as `drover job plan` renders a diff.
func formatVersion(e versionEntry) string {
	rows := []string{
		"Version|" + strconv.FormatUint(deref(e.job.Version), 10),
		"Stable|" + strconv.FormatBool(deref(e.job.Stable)),
		"Submit Date|" + formatUnixNano(deref(e.job.SubmitTime)),
	}
	if e.diff == nil {
		return formatKV(rows)
	}
	rows = append(rows, "Diff|")
	return formatKV(rows) + "\n" + strings.TrimRight(formatJobDiff(e.diff, false), "\n")
}

// outputJSON prints the versions alone, as Nomad's `job history -json`
// does.
func (c *JobHistoryCommand) outputJSON(entries []versionEntry) int {
	versions := make([]*api.Job, len(entries))
	for i, e := range entries {
		versions[i] = e.job
	}
	out, err := json.MarshalIndent(versions, "", "    ")
	if err != nil {
		c.Ui.Error(fmt.Sprintf("Error encoding job versions: %v", err))
		return exitError
	}
	c.Ui.Output(string(out))
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

package command

import (
	"fmt"
	"net/url"
	"os/exec"
	"runtime"
	"strings"

	"github.com/drover-io/drover/api"
)

// UICommand prints, and opens in a browser, the page of the web UI that
// shows a job or an allocation, or the jobs page.
type UICommand struct {
	Meta
	// open starts a browser on a URL; nil means openBrowser. Tests set it.
	open func(url string) error
}

func (c *UICommand) Help() string {
	return strings.TrimSpace(`
Usage: drover ui [options] [<job>|<alloc>]

  Opens the agent's web UI in a browser: the page of the job or the
  allocation named by its ID or a unique prefix of one (a job first, then
  an allocation), or the jobs page without one. It prints the URL, so that
  it can be opened by hand where no browser can be started.
` + clientOptionsHelp + `
UI Options:

  -show-url
    Print the URL and do not open a browser.
`)
}

func (c *UICommand) Synopsis() string { return "Open the web UI" }

func (c *UICommand) Run(args []string) int {
	var showURL bool
	fs := c.ClientFlagSet("ui")
	fs.BoolVar(&showURL, "show-url", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() > 1 {
		return usageError(c.Ui, "ui", "This command takes at most one argument: [<job>|<alloc>]")
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	page := "jobs"
	if fs.NArg() == 1 {
		var ok bool
		if page, ok = c.uiPage(client, fs.Arg(0)); !ok {
			return exitError
		}
	}
	link := strings.TrimRight(client.Address(), "/") + "/ui/" + page
	if showURL {
		c.Ui.Output(link)
		return exitOK
	}
	c.Ui.Output(fmt.Sprintf("Opening URL %q", link))
	open := c.open
	if open == nil {
		open = openBrowser
	}
	if err := open(link); err != nil {
		c.Ui.Warn(fmt.Sprintf("Could not open a browser (%v): open the URL above", err))
	}
	return exitOK
}

// uiPage is the UI's path for what id names: a job, or else an
// allocation, by ID or unique prefix. When it names neither, or several,
// it tells the user and returns false.
func (c *UICommand) uiPage(client *api.Client, id string) (string, bool) {
	jobs, _, err := client.Jobs().PrefixList(id)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "querying jobs", err))
		return "", false
	}
	if len(jobs) > 0 {
		job, ok := resolvePrefix(c.Ui, id, "job", jobs, func(j *api.JobListStub) string { return j.ID }, jobListTable)
		return "jobs/" + url.PathEscape(job.ID) + "@" + url.PathEscape(job.Namespace), ok
	}
	allocs, _, err := client.Allocations().PrefixList(id)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "querying allocations", err))
		return "", false
	}
	if len(allocs) == 0 {
		c.Ui.Error(fmt.Sprintf("No job or allocation with prefix or id %q found", id))
		return "", false
	}
	alloc, ok := resolvePrefix(c.Ui, id, "allocation", allocs, func(a *api.AllocationListStub) string { return a.ID }, allocIDList)
	return "allocations/" + url.PathEscape(alloc.ID), ok
}

// allocIDList lists allocations by ID, for an ambiguous prefix.
func allocIDList(allocs []*api.AllocationListStub) string {
	ids := make([]string, len(allocs))
	for i, a := range allocs {
		ids[i] = a.ID
	}
	return strings.Join(ids, "\n")
}

// openBrowser starts the desktop's browser on link and does not wait for
// it.
func openBrowser(link string) error {
	name := "xdg-open"
	if runtime.GOOS == "darwin" {
		name = "open"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return fmt.Errorf("no %s on PATH", name)
	}
	cmd := exec.Command(path, link)
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait() // reap it; the browser outlives the command
	return nil
}

package command

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/drover-io/drover/api"
)

// AllocChecksCommand shows the latest results of an allocation's service
// checks, as its client runs them.
type AllocChecksCommand struct{ Meta }

func (c *AllocChecksCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover alloc checks [options] <alloc>

  Shows the latest result of each service check of an allocation, named
  by its ID or a unique prefix of one, as the client that runs it last
  ran it.
` + clientOptionsHelp + `
Alloc Checks Options:

  -json
    Print the checks as JSON, by check ID.
`)
}

func (c *AllocChecksCommand) Synopsis() string { return "Show an allocation's service check results" }

func (c *AllocChecksCommand) Run(args []string) int {
	var asJSON bool
	fs := c.ClientFlagSet("alloc checks")
	fs.BoolVar(&asJSON, "json", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 1 {
		return usageError(c.Ui, "alloc checks", "This command takes one argument: <alloc>")
	}
	client, alloc, ok := c.clientAndAlloc(fs.Arg(0))
	if !ok {
		return exitError
	}
	checks, err := client.Allocations().Checks(alloc.ID, nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "querying allocation checks", err))
		return exitError
	}
	if asJSON {
		out, err := json.MarshalIndent(checks, "", "    ")
		if err != nil {
			c.Ui.Error(fmt.Sprintf("Error encoding checks: %v", err))
			return exitError
		}
		c.Ui.Output(string(out))
		return exitOK
	}
	c.Ui.Output(formatAllocChecks(checks))
	return exitOK
}

// formatAllocChecks lists the checks, by service, task and name, in
// Nomad's layout.
func formatAllocChecks(checks api.AllocCheckStatuses) string {
	list := make([]api.AllocCheckStatus, 0, len(checks))
	for _, st := range checks {
		list = append(list, st)
	}
	sort.Slice(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if a.Service != b.Service {
			return a.Service < b.Service
		}
		if a.Task != b.Task {
			return a.Task < b.Task
		}
		return a.Check < b.Check
	})
	var b strings.Builder
	fmt.Fprintf(&b, "Status of %d Nomad Service Checks\n", len(list))
	for _, st := range list {
		task := st.Task
		if task == "" {
			task = "(group)"
		}
		rows := []string{
			"ID|" + st.ID,
			"Name|" + st.Check,
			"Group|" + st.Group,
			"Task|" + task,
			"Service|" + st.Service,
			"Status|" + st.Status,
		}
		if st.StatusCode != 0 {
			rows = append(rows, "StatusCode|"+strconv.Itoa(st.StatusCode))
		}
		rows = append(rows,
			"Mode|"+st.Mode,
			"Timestamp|"+time.Unix(st.Timestamp, 0).Format(time.RFC3339),
			"Output|"+strings.TrimSpace(st.Output),
		)
		b.WriteString("\n")
		b.WriteString(formatKV(rows))
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

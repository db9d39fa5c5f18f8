package command

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/drover-io/drover/api"
)

// AllocDeadlineCommand changes the max_run_duration of one running
// allocation.
type AllocDeadlineCommand struct{ Meta }

func (c *AllocDeadlineCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover alloc deadline [options] <alloc> <duration | +duration | -duration>

  Changes the max_run_duration of one running allocation of a batch or
  sysbatch job, named by its ID or a unique prefix of one, and prints the
  new deadline. The budget still counts from the allocation's creation:

    drover alloc deadline 8f3c 2h     the budget is 2h from now on
    drover alloc deadline 8f3c +30m   30 minutes more than it has
    drover alloc deadline 8f3c -10m   10 minutes less

  A budget already spent stops the allocation at once. The change is the
  allocation's alone; a later job version that changes the group's
  max_run_duration replaces it. A Drover addition: it calls
  PUT /v1/allocation/:id/max-run-duration.
` + clientOptionsHelp + `
Alloc Deadline Options:

  -verbose
    Show full IDs.
`)
}

func (c *AllocDeadlineCommand) Synopsis() string {
	return "Change a running allocation's max_run_duration"
}

func (c *AllocDeadlineCommand) Run(args []string) int {
	var verbose bool
	fs := c.ClientFlagSet("alloc deadline")
	fs.BoolVar(&verbose, "verbose", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 2 {
		return usageError(c.Ui, "alloc deadline", "This command takes two arguments: <alloc> <duration | +duration | -duration>")
	}
	change, err := parseBudgetChange(fs.Arg(1))
	if err != nil {
		c.Ui.Error(err.Error())
		return exitError
	}
	client, alloc, ok := c.clientAndAlloc(fs.Arg(0))
	if !ok {
		return exitError
	}
	budget, err := change.apply(alloc.MaxRunDuration)
	if err != nil {
		c.Ui.Error(fmt.Sprintf("Allocation %q: %v", shortID(alloc.ID, verbose), err))
		return exitError
	}
	resp, err := client.Allocations().SetMaxRunDuration(alloc.ID, budget, nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "changing the allocation's max_run_duration", err))
		return exitError
	}
	c.Ui.Output(formatDeadlineChange(alloc, resp, verbose, time.Now()))
	return exitOK
}

// budgetChange is what the user asked for: a whole budget, or a change of
// the current one.
type budgetChange struct {
	// sign is +1 or -1 for a change of the current budget, 0 for a whole
	// budget.
	sign int
	d    time.Duration
}

// parseBudgetChange reads "2h", "+30m" or "-10m".
func parseBudgetChange(arg string) (budgetChange, error) {
	var c budgetChange
	rest := arg
	switch {
	case strings.HasPrefix(arg, "+"):
		c.sign, rest = 1, arg[1:]
	case strings.HasPrefix(arg, "-"):
		c.sign, rest = -1, arg[1:]
	}
	d, err := time.ParseDuration(rest)
	if err != nil || d <= 0 || strings.HasPrefix(rest, "+") || strings.HasPrefix(rest, "-") {
		return c, fmt.Errorf("invalid duration %q: give a budget such as 2h, or a change such as +30m or -10m", arg)
	}
	c.d = d
	return c, nil
}

// apply is the new budget, given the allocation's current one (zero when
// it has none).
func (c budgetChange) apply(current time.Duration) (time.Duration, error) {
	switch {
	case c.sign == 0:
		return c.d, nil
	case current <= 0:
		return 0, errors.New("it has no max_run_duration to change; give the whole budget, such as 2h")
	case c.sign > 0:
		if c.d > time.Duration(1<<63-1)-current {
			return 0, fmt.Errorf("%s plus %s is too long", exactDuration(current), exactDuration(c.d))
		}
		return current + c.d, nil
	case c.d >= current:
		return 0, fmt.Errorf("its budget is %s: taking %s leaves nothing", exactDuration(current), exactDuration(c.d))
	}
	return current - c.d, nil
}

// formatDeadlineChange says what changed: the budget before and after and
// the new deadline, absolute and relative.
func formatDeadlineChange(alloc *api.Allocation, resp *api.AllocMaxRunDurationResponse, verbose bool, now time.Time) string {
	before := "none"
	if alloc.MaxRunDuration > 0 {
		before = exactDuration(alloc.MaxRunDuration)
	}
	rows := []string{
		"ID|" + shortID(alloc.ID, verbose),
		"Max Run Duration|" + before + " => " + exactDuration(resp.MaxRunDuration),
	}
	if resp.MaxRunDeadline != 0 {
		deadline := time.Unix(0, resp.MaxRunDeadline)
		rows = append(rows, "Deadline|"+formatTimeMillis(deadline)+" ("+relativeText(deadline.Sub(now))+")")
	}
	return formatKV(rows)
}

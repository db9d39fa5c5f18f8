package command

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/hashicorp/cli"
	"golang.org/x/term"

	"github.com/drover-io/drover/api"
)

// AllocExecCommand runs a command in a running task, interactively.
type AllocExecCommand struct{ Meta }

func (c *AllocExecCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover alloc exec [options] <alloc> <command> [<args>...]

  Runs a command in a running task of an allocation, named by its ID or a
  unique prefix of one, with its input and output attached to this
  terminal, and exits with the command's exit code. The task may be left
  out when the allocation runs one. With -job, the first argument is a
  job, and one of its running allocations is picked at random.

  The command runs as the task does: a raw_exec task's in its directory,
  with its environment and user; an exec task's inside its namespaces and
  root; a docker task's in its container. With ACLs, it needs alloc-exec
  in the allocation's namespace, and for a raw_exec task alloc-node-exec
  as well.
` + clientOptionsHelp + `
Alloc Exec Options:

  -task=<task>
    The task to run the command in.

  -job
    Take the first argument as a job ID and pick one of its running
    allocations at random.

  -i
    Pass stdin to the command. Defaults to true; -i=false sends none.

  -t
    Run the command on a terminal. Defaults to true when stdin is a
    terminal; -t=false turns it off.

  -e=<char>
    The escape character of a session on a terminal (default "~"). At the
    start of a line, the escape character followed by "." closes the
    session, and typed twice it sends itself. "none" turns escapes off.
`)
}

func (c *AllocExecCommand) Synopsis() string { return "Run a command in a running allocation" }

func (c *AllocExecCommand) Run(args []string) int {
	var taskName, escape string
	var byJob, stdinOpt bool
	var ttyOpt optionalBool
	fs := c.ClientFlagSet("alloc exec")
	fs.StringVar(&taskName, "task", "", "")
	fs.BoolVar(&byJob, "job", false, "")
	fs.BoolVar(&stdinOpt, "i", true, "")
	fs.Var(&ttyOpt, "t", "")
	fs.StringVar(&escape, "e", "~", "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() < 2 {
		return usageError(c.Ui, "alloc exec", "This command takes at least two arguments: <alloc> <command> [<args>...]")
	}
	if escape != "none" && len(escape) != 1 {
		return usageError(c.Ui, "alloc exec", fmt.Sprintf(`-e must be one character or "none", not %q`, escape))
	}
	stdinIsTerminal := isTerminal(c.Stdin)
	tty := ttyOpt.or(stdinOpt && stdinIsTerminal)

	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	var alloc *api.Allocation
	if byJob {
		alloc, ok = c.runningAllocOfJob(client, fs.Arg(0))
	} else {
		alloc, ok = c.resolveAlloc(client, fs.Arg(0))
	}
	if !ok {
		return exitError
	}
	if taskName, ok = c.pickTask(alloc, taskName); !ok {
		return exitError
	}
	if alloc.ClientStatus == "complete" || alloc.ClientStatus == "failed" || alloc.ClientStatus == "lost" {
		c.Ui.Error(fmt.Sprintf("Allocation %q has finished (%s): there is no running task to exec into", shortID(alloc.ID, false), alloc.ClientStatus))
		return exitError
	}

	stdout, stderr := uiOutWriter(c.Ui), uiErrWriter(c.Ui)
	var stdin io.Reader
	if stdinOpt {
		stdin = c.Stdin
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var sizes chan api.TerminalSize
	if tty && stdinIsTerminal {
		fd := int(c.Stdin.(*os.File).Fd())
		state, err := term.MakeRaw(fd)
		if err != nil {
			c.Ui.Error(fmt.Sprintf("Error putting the terminal in raw mode: %v", err))
			return exitError
		}
		defer term.Restore(fd, state)
		sizes = make(chan api.TerminalSize, 1)
		go watchTerminalSize(ctx, fd, sizes)
	}
	if stdin != nil && tty && escape != "none" {
		stdin = newEscapeReader(stdin, escape[0])
	}
	code, err := client.Allocations().Exec(ctx, alloc, taskName, tty, fs.Args()[1:], stdin, stdout, stderr, sizes, nil)
	switch {
	case errors.Is(err, errEscapeClose):
		fmt.Fprint(stderr, "\r\nConnection closed by the escape sequence.\r\n")
		return exitError
	case err != nil:
		c.Ui.Error(apiErrorLine(client, "exec into the task", err))
		return exitError
	}
	return code
}

// runningAllocOfJob picks one running allocation of the job at random.
func (c *AllocExecCommand) runningAllocOfJob(client *api.Client, jobID string) (*api.Allocation, bool) {
	stubs, _, err := client.Jobs().Allocations(jobID, false, nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "querying the job's allocations", err))
		return nil, false
	}
	var running []*api.AllocationListStub
	for _, s := range stubs {
		if s.ClientStatus == "running" {
			running = append(running, s)
		}
	}
	if len(running) == 0 {
		c.Ui.Error(fmt.Sprintf("Job %q has no running allocation", jobID))
		return nil, false
	}
	alloc, _, err := client.Allocations().Info(running[rand.IntN(len(running))].ID, nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "querying allocation", err))
		return nil, false
	}
	return alloc, true
}

// watchTerminalSize sends the terminal's size now and at every change,
// until ctx is done.
func watchTerminalSize(ctx context.Context, fd int, sizes chan<- api.TerminalSize) {
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	defer signal.Stop(winch)
	for {
		if w, h, err := term.GetSize(fd); err == nil {
			select {
			case sizes <- api.TerminalSize{Height: h, Width: w}:
			case <-ctx.Done():
				return
			}
		}
		select {
		case <-winch:
		case <-ctx.Done():
			return
		}
	}
}

// isTerminal reports whether r is a terminal.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// uiErrWriter returns where the UI prints errors, so that a command's
// stderr passes through byte for byte.
func uiErrWriter(ui cli.Ui) io.Writer {
	switch u := ui.(type) {
	case *cli.BasicUi:
		return u.ErrorWriter
	case *cli.MockUi:
		return u.ErrorWriter
	case *cli.ConcurrentUi:
		return uiErrWriter(u.Ui)
	case *safeUi:
		return uiErrWriter(u.Ui)
	}
	return uiOutWriter(ui)
}

// optionalBool is a boolean flag that knows whether it was set.
type optionalBool struct {
	set, value bool
}

func (b *optionalBool) String() string { return fmt.Sprint(b.value) }

func (b *optionalBool) Set(s string) error {
	v, err := parseBoolFlag(s)
	if err != nil {
		return err
	}
	b.set, b.value = true, v
	return nil
}

// IsBoolFlag lets -t stand alone, as -t=true.
func (b *optionalBool) IsBoolFlag() bool { return true }

// or is the flag's value, or def when it was not set.
func (b *optionalBool) or(def bool) bool {
	if b.set {
		return b.value
	}
	return def
}

func parseBoolFlag(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "1", "t", "true":
		return true, nil
	case "0", "f", "false":
		return false, nil
	}
	return false, fmt.Errorf("invalid boolean %q", s)
}

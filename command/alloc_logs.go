package command

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hashicorp/cli"

	"github.com/drover-io/drover/api"
)

// Defaults of alloc logs -tail.
const (
	// defaultTailLines is how many lines -tail shows without -n or -c.
	defaultTailLines = 10
	// tailBytesPerLine is the guess of a line's length that turns -n into
	// the bytes to ask for; the lines beyond n are dropped here.
	tailBytesPerLine = 512
	// tailMinBytes is the least -n asks for, so that short counts of long
	// lines still come whole.
	tailMinBytes = 64 << 10
	// tailSettle is how long a followed tail waits for the log that
	// already exists to arrive before it cuts it to n lines.
	tailSettle = 300 * time.Millisecond
)

// AllocLogsCommand prints a task's stdout or stderr.
type AllocLogsCommand struct{ Meta }

func (c *AllocLogsCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover alloc logs [options] <alloc> [task]
       drover alloc logs -job [options] <job> [task]

  Prints the output of a task of an allocation, named by its ID or a
  unique prefix of one. The task may be left out when the allocation's
  group has a single task. The logs are read from the node that runs the
  allocation.

  With -job the argument is a job, and the allocation one of its
  allocations: a running one, picked at random when there are several,
  or, when none runs, the newest.
` + clientOptionsHelp + `
Alloc Logs Options:

  -job
    The argument is a job ID (or a unique prefix of one), and the
    allocation one of the job's: a running one, else the newest.

  -stderr
    Print the task's stderr instead of its stdout.

  -task=<task>
    The task, instead of the second argument.

  -f
    Follow: keep printing new output until the task is dead or the
    command is interrupted.

  -tail
    Print the end of the log: the last 10 lines unless -n or -c says
    otherwise.

  -n=<lines>
    With -tail, print the last <lines> lines.

  -c=<bytes>
    With -tail, print the last <bytes> bytes.
`)
}

func (c *AllocLogsCommand) Synopsis() string { return "Streams the logs of a task." }

func (c *AllocLogsCommand) Run(args []string) int {
	var stderr, follow, tail, byJob bool
	var taskFlag string
	var lines, bytesN int64
	fs := c.ClientFlagSet("alloc logs")
	fs.BoolVar(&stderr, "stderr", false, "")
	fs.BoolVar(&follow, "f", false, "")
	fs.BoolVar(&tail, "tail", false, "")
	fs.BoolVar(&byJob, "job", false, "")
	fs.StringVar(&taskFlag, "task", "", "")
	fs.Int64Var(&lines, "n", -1, "")
	fs.Int64Var(&bytesN, "c", -1, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		return usageError(c.Ui, "alloc logs", "This command takes one or two arguments: <alloc> [task], or with -job <job> [task]")
	}
	switch {
	case lines == 0 || lines < -1:
		c.Ui.Error("-n must be a positive number of lines")
		return exitError
	case bytesN == 0 || bytesN < -1:
		c.Ui.Error("-c must be a positive number of bytes")
		return exitError
	case lines > 0 && bytesN > 0:
		c.Ui.Error("-n and -c cannot be used together")
		return exitError
	case (lines > 0 || bytesN > 0) && !tail:
		c.Ui.Error("-n and -c need -tail")
		return exitError
	}
	taskName := taskFlag
	if fs.NArg() == 2 {
		if taskFlag != "" && taskFlag != fs.Arg(1) {
			c.Ui.Error(fmt.Sprintf("The task is named twice: -task=%s and %s", taskFlag, fs.Arg(1)))
			return exitError
		}
		taskName = fs.Arg(1)
	}

	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	var alloc *api.Allocation
	if byJob {
		alloc, ok = c.resolveJobAlloc(client, fs.Arg(0))
	} else {
		alloc, ok = c.resolveAlloc(client, fs.Arg(0))
	}
	if !ok {
		return exitError
	}
	task, ok := c.pickTask(alloc, taskName)
	if !ok {
		return exitError
	}

	logType := "stdout"
	if stderr {
		logType = "stderr"
	}
	origin, offset := api.OriginStart, int64(0)
	keepLines := int64(0)
	if tail {
		origin = api.OriginEnd
		switch {
		case bytesN > 0:
			offset = bytesN
		default:
			keepLines = defaultTailLines
			if lines > 0 {
				keepLines = lines
			}
			offset = max(keepLines*tailBytesPerLine, tailMinBytes)
		}
	}

	ctx, stop := interruptContext()
	defer stop()
	body, err := client.AllocFS().LogsPlain(ctx, alloc.ID, task, logType, origin, offset, follow)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "reading logs", err))
		return exitError
	}
	defer body.Close()

	out := uiOutWriter(c.Ui)
	if keepLines > 0 {
		err = copyLastLines(out, body, int(keepLines), follow)
	} else {
		_, err = io.Copy(out, body)
	}
	if flusher, ok := out.(interface{ Flush() }); ok {
		flusher.Flush()
	}
	if ctx.Err() != nil {
		return exitOK // interrupted while following
	}
	if err != nil {
		c.Ui.Error(fmt.Sprintf("Error reading logs: %v", err))
		return exitError
	}
	return exitOK
}

// copyLastLines copies the last n lines of what r holds now to w. When
// following, it takes the log that already exists to be what arrives
// before the stream first pauses, and copies everything after it as is.
func copyLastLines(w io.Writer, r io.Reader, n int, follow bool) error {
	if !follow {
		data, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		_, err = w.Write(lastLines(data, n))
		return err
	}
	chunks := make(chan []byte)
	errc := make(chan error, 1)
	go func() {
		for {
			buf := make([]byte, 32<<10)
			k, err := r.Read(buf)
			if k > 0 {
				chunks <- buf[:k]
			}
			if err != nil {
				close(chunks)
				errc <- err
				return
			}
		}
	}()
	var head []byte
	settled := false
	timer := time.NewTimer(tailSettle)
	defer timer.Stop()
	for !settled {
		select {
		case chunk, ok := <-chunks:
			if !ok {
				settled = true
				break
			}
			head = append(head, chunk...)
			timer.Reset(tailSettle)
		case <-timer.C:
			settled = true
		}
	}
	if _, err := w.Write(lastLines(head, n)); err != nil {
		return err
	}
	for chunk := range chunks {
		if _, err := w.Write(chunk); err != nil {
			return err
		}
	}
	if err := <-errc; !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// lastLines returns the last n lines of data; a final line without a
// newline counts as a line.
func lastLines(data []byte, n int) []byte {
	end := len(data)
	if end > 0 && data[end-1] == '\n' {
		end--
	}
	for i := end - 1; i >= 0; i-- {
		if data[i] == '\n' {
			n--
			if n == 0 {
				return data[i+1:]
			}
		}
	}
	return data
}

// uiOutWriter returns where the UI prints standard output, so that logs
// pass through byte for byte. A UI of an unknown kind gets whole lines
// through its Output.
func uiOutWriter(ui cli.Ui) io.Writer {
	switch u := ui.(type) {
	case *cli.BasicUi:
		return u.Writer
	case *cli.MockUi:
		return u.OutputWriter
	case *cli.ConcurrentUi:
		return uiOutWriter(u.Ui)
	case *safeUi:
		return uiOutWriter(u.Ui)
	}
	return &lineUiWriter{ui: ui}
}

// lineUiWriter hands complete lines to a UI's Output.
type lineUiWriter struct {
	ui  cli.Ui
	buf bytes.Buffer
}

func (w *lineUiWriter) Write(p []byte) (int, error) {
	w.buf.Write(p)
	for {
		line, err := w.buf.ReadString('\n')
		if err != nil {
			w.buf.WriteString(line)
			return len(p), nil
		}
		w.ui.Output(strings.TrimSuffix(line, "\n"))
	}
}

// Flush hands over a last line that has no newline.
func (w *lineUiWriter) Flush() {
	if w.buf.Len() > 0 {
		w.ui.Output(w.buf.String())
		w.buf.Reset()
	}
}

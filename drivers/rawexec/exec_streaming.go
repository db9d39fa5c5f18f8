package rawexec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/creack/pty"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/drivers/exec/isolate"
)

var _ drivers.ExecStreamer = (*Driver)(nil)

// outputDrainTimeout bounds the wait, once an interactive command has
// exited, for the rest of its output: a child it left in the background
// may hold its output open for ever.
const outputDrainTimeout = 5 * time.Second

// ExecReachesHost: a raw_exec task's command sees the host; an isolated
// task's (the exec driver's) does not.
func (d *Driver) ExecReachesHost() bool { return d.isolate == nil }

// ExecTaskStreaming runs an interactive command in the task
// (drivers.ExecStreamer): in its directory, with its environment, as its
// user, in its cgroup; an isolated task's inside its namespaces and root.
// The command gets a session of its own, killed whole when ctx ends.
func (d *Driver) ExecTaskStreaming(ctx context.Context, taskID string, opts *drivers.ExecOptions) (*drivers.ExitResult, error) {
	if len(opts.Command) == 0 || opts.Command[0] == "" {
		return nil, errors.New("exec: no command")
	}
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return nil, err
	}
	proc, err := isolate.OpenProcess(t.state.PID)
	if err != nil {
		return nil, err
	}
	defer proc.Close()
	// Checked with the pidfd open: the pidfd is the task's process.
	if t.exited() {
		return nil, fmt.Errorf("task %q is not running", t.cfg.Name)
	}
	if d.isolate != nil {
		return d.execIsolated(ctx, t, proc, opts)
	}
	cfg := t.cfg
	path, err := resolveCommand(opts.Command[0], cfg.TaskDir, cfg.Env["PATH"])
	if err != nil {
		// resolveCommand words its errors for the task's command.
		return nil, errors.New(strings.TrimPrefix(err.Error(), `config key "command": `))
	}
	cred, err := taskCredential(cfg.User)
	if err != nil {
		return nil, fmt.Errorf("exec %s: %w", opts.Command[0], err)
	}
	c := &exec.Cmd{Path: path, Args: opts.Command, Dir: cfg.TaskDir, Env: envList(cfg.Env), SysProcAttr: &syscall.SysProcAttr{}}
	if cred != nil {
		c.SysProcAttr.Credential = cred.sys()
	}
	// In the task's cgroup, the command counts against the task and dies
	// with it; a task without one (not root) leaves it in the agent's.
	cg, err := proc.CgroupDir()
	if err != nil {
		d.logger.Debug("exec: the command runs outside the task's cgroup", "task_id", taskID, "error", err)
	}
	if cg != nil {
		defer cg.Close()
		startInCgroup(c.SysProcAttr, cg)
	}
	return runInteractive(ctx, c, opts, c.Start)
}

// execIsolated runs the command inside the isolated task's namespaces,
// root and cgroup, with its capabilities, user and environment.
func (d *Driver) execIsolated(ctx context.Context, t *task, proc *isolate.Process, opts *drivers.ExecOptions) (*drivers.ExitResult, error) {
	it, err := d.isolate(t.cfg)
	if err != nil {
		return nil, fmt.Errorf("exec: the task's isolation: %w", err)
	}
	cg, err := proc.CgroupDir()
	if err != nil {
		return nil, fmt.Errorf("exec: %w", err)
	}
	c := &exec.Cmd{Path: opts.Command[0], Args: opts.Command, Dir: "/", Env: envList(it.Env), SysProcAttr: &syscall.SysProcAttr{}}
	if cg != nil {
		defer cg.Close()
		startInCgroup(c.SysProcAttr, cg)
	}
	return runInteractive(ctx, c, opts, func() error {
		// Its errors name the command: a close reason has room for
		// little more.
		return isolate.StartIn(proc, it.Isolation, c)
	})
}

// runInteractive starts c with start, streams it as opts say (on a
// terminal of its own when opts.Tty), and returns how it ended once its
// output has been written. c gets a session of its own; cancelling ctx
// kills it.
func runInteractive(ctx context.Context, c *exec.Cmd, opts *drivers.ExecOptions, start func() error) (*drivers.ExitResult, error) {
	c.SysProcAttr.Setsid = true
	var s *streams
	var err error
	if opts.Tty {
		s, err = ptyStreams(c, opts)
	} else {
		s, err = pipeStreams(c)
	}
	if err != nil {
		return nil, err
	}
	defer s.closeAll()
	if err := start(); err != nil {
		return nil, err
	}
	s.closeChildEnds()
	s.copy(opts)

	waited := make(chan error, 1)
	go func() { waited <- c.Wait() }()
	select {
	case <-waited:
	case <-ctx.Done():
		_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		<-waited
	}
	s.drain()
	return exitResult(c.ProcessState), nil
}

// exitResult is how the process ended.
func exitResult(ps *os.ProcessState) *drivers.ExitResult {
	res := &drivers.ExitResult{ExitCode: ps.ExitCode()}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.ExitCode, res.Signal = 0, int(ws.Signal())
	}
	return res
}

// streams are an interactive command's files: the child's ends, given to
// it and closed here once it has started, and ours.
type streams struct {
	child []*os.File
	// stdin is where the caller's input goes; it is closed at the
	// input's end (pipes) or kept (a terminal's master).
	stdin          *os.File
	stdout, stderr *os.File // stderr is nil on a terminal
	ptmx           *os.File
	// copies ends when both outputs are copied.
	copies chan struct{}
	done   chan struct{}
}

func pipeStreams(c *exec.Cmd) (*streams, error) {
	s := &streams{done: make(chan struct{})}
	var files [6]*os.File
	for i := 0; i < 6; i += 2 {
		r, w, err := os.Pipe()
		if err != nil {
			s.child = files[:i]
			s.closeAll()
			return nil, fmt.Errorf("exec: %w", err)
		}
		files[i], files[i+1] = r, w
	}
	c.Stdin, s.stdin = files[0], files[1]
	s.stdout, c.Stdout = files[2], files[3]
	s.stderr, c.Stderr = files[4], files[5]
	s.child = []*os.File{files[0], files[3], files[5]}
	return s, nil
}

func ptyStreams(c *exec.Cmd, opts *drivers.ExecOptions) (*streams, error) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		return nil, fmt.Errorf("exec: open a terminal: %w", err)
	}
	if size, ok := opts.InitialSize(); ok {
		setSize(ptmx, size)
	}
	c.Stdin, c.Stdout, c.Stderr = tty, tty, tty
	c.SysProcAttr.Setctty = true
	c.SysProcAttr.Ctty = 0
	return &streams{child: []*os.File{tty}, stdin: ptmx, stdout: ptmx, ptmx: ptmx, done: make(chan struct{})}, nil
}

// closeChildEnds closes the child's ends once it has them: ours then see
// the end of its output when it (and whatever it started) is done.
func (s *streams) closeChildEnds() {
	for _, f := range s.child {
		f.Close()
	}
	s.child = nil
}

// copy streams the caller's input to the command and its output to the
// caller, and the caller's terminal sizes to the terminal.
func (s *streams) copy(opts *drivers.ExecOptions) {
	go func() {
		if opts.Stdin != nil {
			_, _ = io.Copy(s.stdin, opts.Stdin)
		}
		if s.ptmx == nil {
			s.stdin.Close()
		} else {
			// The terminal's end of input, as a user types it.
			_, _ = s.ptmx.Write([]byte{4})
		}
	}()
	if s.ptmx != nil && opts.Resize != nil {
		go func() {
			for {
				select {
				case <-s.done:
					return
				case size := <-opts.Resize:
					setSize(s.ptmx, size)
				}
			}
		}()
	}
	s.copies = make(chan struct{})
	go func() {
		defer close(s.copies)
		errc := make(chan struct{}, 2)
		n := 0
		for _, p := range []struct {
			from *os.File
			to   io.Writer
		}{{s.stdout, opts.Stdout}, {s.stderr, opts.Stderr}} {
			if p.from == nil {
				continue
			}
			n++
			go func() {
				// A terminal's master reads EIO once the command and
				// its children have closed it: its end.
				_, _ = io.Copy(p.to, p.from)
				errc <- struct{}{}
			}()
		}
		for range n {
			<-errc
		}
	}()
}

// drain waits, once the command has exited, for the rest of its output,
// up to outputDrainTimeout.
func (s *streams) drain() {
	t := time.NewTimer(outputDrainTimeout)
	defer t.Stop()
	select {
	case <-s.copies:
	case <-t.C:
		// Closing our ends ends the copies.
		s.stdout.Close()
		if s.stderr != nil {
			s.stderr.Close()
		}
		<-s.copies
	}
}

// closeAll closes every file and stops the resizing.
func (s *streams) closeAll() {
	if s.done != nil && !drivers.Closed(s.done) {
		close(s.done)
	}
	for _, f := range append(s.child, s.stdin, s.stdout, s.stderr) {
		if f != nil {
			f.Close()
		}
	}
}

// setSize sizes the terminal.
func setSize(ptmx *os.File, size drivers.TerminalSize) {
	_ = pty.Setsize(ptmx, &pty.Winsize{Rows: uint16(clampSize(size.Height)), Cols: uint16(clampSize(size.Width))})
}

// clampSize keeps a terminal dimension within what the kernel takes.
func clampSize(n int) int { return max(0, min(n, 1<<15)) }

package isolate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// InitArg is the argument that makes the agent's binary run InitMain.
const InitArg = "task-isolate-init"

// The init's extra file descriptors: the pipe it reads its spec from and
// the one it reports a failure on (closed by its exec on success).
const (
	specFD = 3 + iota
	errorFD
)

// startTimeout bounds the wait for the init to exec the task.
const startTimeout = 30 * time.Second

// Launch is one task's isolation, from its supervisor's side.
type Launch struct {
	spec   *Spec
	cgroup *Cgroup
}

// Prepare makes the task's cgroup.
func Prepare(spec *Spec) (*Launch, error) {
	if spec == nil {
		return nil, errors.New("no isolation spec")
	}
	cg, err := CreateCgroup(spec.Cgroup)
	if err != nil {
		return nil, err
	}
	return &Launch{spec: spec, cgroup: cg}, nil
}

// Start starts the init in the task's namespaces, which runs path (looked
// up inside the task's root) with args and env once isolated, and returns
// once it has exec'd the task, or with the reason it could not. The
// returned command is the task's process: the caller waits for it.
func (l *Launch) Start(path string, args, env []string, stdout, stderr *os.File) (*exec.Cmd, error) {
	specR, specW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer specW.Close()
	errR, errW, err := os.Pipe()
	if err != nil {
		specR.Close()
		return nil, err
	}
	defer errR.Close()

	flags := uintptr(syscall.CLONE_NEWNS)
	if l.spec.PrivatePID {
		flags |= syscall.CLONE_NEWPID
	}
	if l.spec.PrivateIPC {
		flags |= syscall.CLONE_NEWIPC
	}
	cmd := &exec.Cmd{
		Path:       "/proc/self/exe",
		Args:       []string{"drover", InitArg},
		Env:        []string{},
		Dir:        "/",
		Stdout:     stdout,
		Stderr:     stderr,
		ExtraFiles: []*os.File{specR, errW},
		// Its own session as raw_exec's tasks: the process group is
		// the task's, for the driver's signals.
		SysProcAttr: &syscall.SysProcAttr{Setsid: true, Cloneflags: flags},
	}
	err = cmd.Start()
	specR.Close()
	errW.Close()
	if err != nil {
		return nil, fmt.Errorf("start the task's init: %w", err)
	}
	is := initSpec{Spec: *l.spec, Path: path, Args: args, Env: env, CgroupProcs: l.cgroup.ProcsFiles()}
	if err := json.NewEncoder(specW).Encode(&is); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("send the task's init its spec: %w", err)
	}
	specW.Close()
	if err := readInitError(errR); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, err
	}
	return cmd, nil
}

// readInitError reads the init's report: nothing (the pipe closed by its
// exec) on success, the reason otherwise.
func readInitError(r *os.File) error {
	_ = r.SetReadDeadline(time.Now().Add(startTimeout))
	b, err := io.ReadAll(io.LimitReader(r, 4<<10))
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("the task's init did not start it within %s", startTimeout)
	case err != nil:
		return fmt.Errorf("read the task's init report: %w", err)
	case len(b) > 0:
		return errors.New(strings.TrimSpace(string(b)))
	}
	return nil
}

// Finish is called once the task's process has exited: it kills whatever
// the task left in its cgroup, reports whether the OOM killer ended it,
// and removes the cgroup.
func (l *Launch) Finish() (oomKilled bool, err error) {
	kerr := l.cgroup.Kill()
	oomKilled = l.cgroup.OOMKilled()
	var rerr error
	if kerr == nil {
		rerr = l.cgroup.Remove()
	}
	return oomKilled, errors.Join(kerr, rerr)
}

package rawexec

import (
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/shoenig/test/must"
)

func TestDefaultActionEnds(t *testing.T) {
	// A shell that traps TERM and ignores HUP, asleep in its wait.
	cmd := exec.Command("/bin/sh", "-c", `trap 'exit 0' TERM; trap '' HUP; while :; do sleep 1; done`)
	must.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	pid := cmd.Process.Pid
	// Give the shell time to set its traps: they are the point.
	for range 100 {
		if !defaultActionEnds(pid, syscall.SIGTERM) {
			break
		}
		syscall.Select(0, nil, nil, nil, &syscall.Timeval{Usec: 20000})
	}
	must.False(t, defaultActionEnds(pid, syscall.SIGTERM), must.Sprint("handled"))
	must.False(t, defaultActionEnds(pid, syscall.SIGHUP), must.Sprint("ignored"))
	must.True(t, defaultActionEnds(pid, syscall.SIGUSR1))
	must.False(t, defaultActionEnds(pid, syscall.SIGCHLD), must.Sprint("default is to ignore"))
	must.False(t, defaultActionEnds(pid, syscall.SIGTSTP), must.Sprint("default is to stop"))
	must.False(t, defaultActionEnds(os.Getpid()+1<<22, syscall.SIGINT), must.Sprint("no such process"))
}

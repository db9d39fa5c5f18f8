package rawexec

import (
	"strconv"
	"strings"
	"testing"

	"github.com/shoenig/test/must"
	"golang.org/x/sys/unix"
)

// The task leads its own session and keeps the agent's priority, although
// its supervisor lowered its own.
func TestDriver_TaskKeepsPriorityInOwnSession(t *testing.T) {
	d := newTestDriver(t)
	cfg := newShellTask(t, `read -r stat < /proc/$$/stat; echo "$$ ${stat#*) }"`)
	startTask(t, d, cfg)
	must.Eq(t, 0, waitResult(t, d, cfg.ID).ExitCode)

	// pid, then the stat fields after the command: state ppid pgrp session ... nice (16th).
	fields := strings.Fields(readLog(t, cfg.StdoutPath))
	must.Greater(t, 17, len(fields))
	must.Eq(t, fields[0], fields[3], must.Sprint("the task's process group is its pid"))
	must.Eq(t, fields[0], fields[4], must.Sprint("the task leads its session"))
	own, err := unix.Getpriority(unix.PRIO_PROCESS, 0)
	must.NoError(t, err)
	must.Eq(t, strconv.Itoa(20-own), fields[17])
}

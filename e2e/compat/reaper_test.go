package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

// The helper runs in a process of its own, as the subreaper the command
// is: it starts a shell that leaves a sleep behind (a background job of a
// non-interactive shell ignores SIGINT, so only the kill stops it), and
// stops what it inherited.
func TestMain(m *testing.M) {
	if os.Getenv("COMPAT_REAPER_HELPER") == "1" {
		os.Exit(reaperHelper())
	}
	os.Exit(m.Run())
}

func reaperHelper() int {
	if err := becomeSubreaper(); err != nil {
		fmt.Println(err)
		return 1
	}
	out, err := exec.Command("sh", "-c", "sleep 300 >/dev/null 2>&1 & echo $!").Output()
	if err != nil {
		fmt.Println(err)
		return 1
	}
	orphan := strings.TrimSpace(string(out))
	for _, l := range stopLeftovers(200 * time.Millisecond) {
		fmt.Printf("stopped %d %s\n", l.Pid, l.Command)
	}
	fmt.Printf("orphan %s\n", orphan)
	return 0
}

func TestStopLeftovers(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "COMPAT_REAPER_HELPER=1")
	out, err := cmd.Output()
	must.NoError(t, err, must.Sprint(string(out)))

	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	must.Len(t, 2, lines, must.Sprint(string(out)))
	orphan, err := strconv.Atoi(strings.TrimPrefix(lines[1], "orphan "))
	must.NoError(t, err)
	must.Eq(t, fmt.Sprintf("stopped %d sleep 300", orphan), lines[0])
	// It is gone: no process has its PID (or a new one does, which is
	// not a sleep of ours).
	if err := syscall.Kill(orphan, 0); err == nil {
		must.NotEq(t, "sleep 300", commandOf(orphan))
	}
}

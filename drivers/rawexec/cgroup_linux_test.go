package rawexec

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/drivers/exec/isolate"
	"github.com/drover-io/drover/internal/waitfor"
)

// withArg returns the live processes whose command line has arg.
func withArg(arg string) []string {
	var out []string
	matches, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, m := range matches {
		b, err := os.ReadFile(m)
		if err == nil && bytes.Contains(b, []byte("\x00"+arg+"\x00")) {
			out = append(out, filepath.Dir(m))
		}
	}
	return out
}

// TestRawExec_ForkedProcessesDieWithTheTask: run as root where the
// machine has cgroups, a raw_exec task runs in a cgroup of its own, and a
// process it forked that left its process group and session still dies
// when the task ends.
func TestRawExec_ForkedProcessesDieWithTheTask(t *testing.T) {
	if os.Geteuid() != 0 || isolate.CgroupVersion() == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("raw_exec's cgroup test needs root and cgroups in CI")
		}
		t.Skip("raw_exec's cgroup test needs root and cgroups")
	}
	d := newTestDriver(t)
	marker := fmt.Sprint(800000 + os.Getpid()%99999)
	cfg := newShellTask(t, fmt.Sprintf(`setsid sleep %s & sleep 1`, marker))
	startTask(t, d, cfg)
	waitfor.True(t, "the escaped sleep", func() bool { return len(withArg(marker)) == 1 }, wait.Timeout(exitTimeout))
	res := waitResult(t, d, cfg.ID)
	must.Eq(t, 0, res.ExitCode)
	waitfor.True(t, "the escaped sleep to die with the task", func() bool { return len(withArg(marker)) == 0 }, wait.Timeout(exitTimeout))
}

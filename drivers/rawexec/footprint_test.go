package rawexec

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/internal/waitfor"
)

// smapsRollup reads a process's memory totals in kB.
func smapsRollup(t *testing.T, pid int) map[string]int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	must.NoError(t, err)
	out := make(map[string]int)
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && f[2] == "kB" {
			n, err := strconv.Atoi(f[1])
			must.NoError(t, err)
			out[strings.TrimSuffix(f[0], ":")] = n
		}
	}
	return out
}

// The supervisor's private memory is what each task costs on top of the
// binary's shared pages. The test binary's supervisor measures about
// 2.4 MiB of Pss_Anon (drover's own, which links more packages, about
// 3.1 MiB): the bound leaves room for a loaded machine, not for a
// supervisor that buffers output, leaks per line, or inherits a package's
// costly initialisation (a regexp compiled at start-up in a package the
// supervisor links took about 250 KiB).
// supervisorPssAnonBoundKiB is the most private memory a supervisor of the
// test binary may keep while its task runs.
const supervisorPssAnonBoundKiB = 2816 // 2.75 MiB

func TestSupervisor_Footprint(t *testing.T) {
	if raceEnabled {
		// make test runs this test again without -race.
		t.Skip("the race detector's runtime inflates memory use")
	}
	d := newTestDriver(t)
	cfg := newShellTask(t, `i=0; while [ $i -lt 400 ]; do echo "line $i of some task output"; echo "err $i" >&2; i=$((i+1)); done; exec sleep 1000`)
	h := startTask(t, d, cfg)
	ds := taskDriverState(t, h)
	waitForGroupSize(t, ds.PGID, 1) // the loop is done once sleep runs alone
	// The supervisor is measured once it has logged everything the loop
	// wrote, and once it has handed start-up's memory back to the OS, which
	// it does while the task runs: its private memory must come under the
	// bound and stay there.
	waitfor.True(t, "the supervisor to log the whole output", func() bool {
		return strings.Contains(readLog(t, cfg.StdoutPath), "line 399 of some task output") &&
			strings.Contains(readLog(t, cfg.StderrPath), "err 399")
	}, wait.Timeout(exitTimeout))
	var m map[string]int
	waitfor.NoError(t, "the supervisor's private memory under its bound", func() error {
		m = smapsRollup(t, ds.SupervisorPID)
		if m["Pss_Anon"] >= supervisorPssAnonBoundKiB {
			return fmt.Errorf("Pss_Anon=%d kB, bound %d kB", m["Pss_Anon"], supervisorPssAnonBoundKiB)
		}
		return nil
	}, wait.Timeout(exitTimeout))
	threads, err := os.ReadDir("/proc/" + strconv.Itoa(ds.SupervisorPID) + "/task")
	must.NoError(t, err)
	t.Logf("supervisor %d: Rss=%d kB Pss=%d kB Pss_Anon=%d kB Pss_File=%d kB threads=%d",
		ds.SupervisorPID, m["Rss"], m["Pss"], m["Pss_Anon"], m["Pss_File"], len(threads))
	must.LessEq(t, 8, len(threads))

	must.NoError(t, d.DestroyTask(cfg.ID, true))
}

package rawexec

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"
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
// binary's shared pages. The bound is loose, for the test binary (bigger
// than a bare supervisor); it catches a supervisor that buffers output or
// leaks per line.
func TestSupervisor_Footprint(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's runtime inflates memory use")
	}
	if _, err := os.Stat("/proc/self/smaps_rollup"); err != nil {
		t.Skip("no /proc/<pid>/smaps_rollup here")
	}
	d := newTestDriver(t)
	cfg := newShellTask(t, `i=0; while [ $i -lt 400 ]; do echo "line $i of some task output"; echo "err $i" >&2; i=$((i+1)); done; exec sleep 1000`)
	h := startTask(t, d, cfg)
	ds := taskDriverState(t, h)
	waitForGroupSize(t, ds.PGID, 1) // the loop is done once sleep runs alone
	time.Sleep(500 * time.Millisecond)

	m := smapsRollup(t, ds.SupervisorPID)
	threads, err := os.ReadDir("/proc/" + strconv.Itoa(ds.SupervisorPID) + "/task")
	must.NoError(t, err)
	t.Logf("supervisor %d: Rss=%d kB Pss=%d kB Pss_Anon=%d kB Pss_File=%d kB threads=%d",
		ds.SupervisorPID, m["Rss"], m["Pss"], m["Pss_Anon"], m["Pss_File"], len(threads))
	must.Less(t, 4<<10, m["Pss_Anon"], must.Sprint("supervisor private memory in kB"))
	must.LessEq(t, 8, len(threads))

	must.NoError(t, d.DestroyTask(cfg.ID, true))
	must.StrContains(t, readLog(t, cfg.StdoutPath), "line 399 of some task output")
}

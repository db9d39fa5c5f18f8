package exec

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/drivers/exec/isolate"
	"github.com/drover-io/drover/internal/waitfor"
)

func TestExec_SeesOnlyItsOwnProcesses(t *testing.T) {
	requireIsolation(t)
	d := newTestDriver(t, nil)
	// The shell is PID 1; /proc lists it, the ls and nothing of the host.
	cfg := newShellTask(t, `cat /proc/1/cmdline | tr '\0' ' '; echo; ls /proc | grep -E '^[0-9]+$' | tr '\n' ' '`)
	startTask(t, d, cfg)
	res := waitResult(t, d, cfg.ID)
	must.Eq(t, 0, res.ExitCode, must.Sprint(stderr(cfg)))

	lines := strings.Split(strings.TrimSpace(stdout(t, cfg)), "\n")
	must.Len(t, 2, lines)
	must.StrHasPrefix(t, "/bin/sh -c cat /proc/1/cmdline", lines[0])
	pids := strings.Fields(lines[1])
	must.SliceContains(t, pids, "1")
	// The shell and its pipeline: a handful, where the host has many
	// more, this test's process among them.
	must.LessEq(t, 5, len(pids), must.Sprintf("pids: %v", pids))
	must.SliceNotContains(t, pids, strconv.Itoa(os.Getpid()))
}

func TestExec_SeesNoHostFilesOutsideItsRoot(t *testing.T) {
	requireIsolation(t)
	d := newTestDriver(t, nil)
	secret := filepath.Join(t.TempDir(), "secret")
	must.NoError(t, os.WriteFile(secret, []byte("host secret"), 0o644))
	cfg := newShellTask(t, fmt.Sprintf(`
cat %s && echo READ-SECRET
ls /
touch /etc/drover-test && echo WROTE-ETC
touch /usr/drover-test && echo WROTE-USR
ls /.supervisor
echo task > /local/out && cat /local/out
echo alloc > /alloc/out
true`, secret))
	startTask(t, d, cfg)
	res := waitResult(t, d, cfg.ID)
	must.Eq(t, 0, res.ExitCode, must.Sprint(stderr(cfg)))

	out := stdout(t, cfg)
	must.StrNotContains(t, out, "READ-SECRET")
	must.StrNotContains(t, out, "WROTE-ETC")
	must.StrNotContains(t, out, "WROTE-USR")
	must.StrContains(t, stderr(cfg), "No such file or directory")
	must.StrContains(t, stderr(cfg), "Read-only file system")
	// The root is the task directory with the chroot_env paths that
	// exist on this host, and the mounts made for the task.
	var entries []string
	for _, line := range strings.Split(out, "\n") {
		if line == "task" {
			break
		}
		entries = append(entries, line)
	}
	for _, want := range []string{"alloc", "bin", "dev", "etc", "local", "proc", "usr"} {
		must.SliceContains(t, entries, want)
	}
	must.SliceNotContains(t, entries, "root")
	must.SliceNotContains(t, entries, "home")
	must.StrContains(t, out, "task\n")
	// The task's writes land in its directories on the host.
	b, err := os.ReadFile(filepath.Join(cfg.AllocDir, "out"))
	must.NoError(t, err)
	must.Eq(t, "alloc\n", string(b))
	_, err = os.Stat("/etc/drover-test")
	must.ErrorIs(t, err, os.ErrNotExist)
}

func TestExec_HeldToItsMemoryLimitAndOOMReported(t *testing.T) {
	requireIsolation(t)
	d := newTestDriver(t, nil)
	// tail keeps the last 200 MB it reads in memory: far over 32 MB.
	cfg := newShellTask(t, `head -c 200000000 /dev/zero | tail -c 200000000 > /dev/null && echo survived`)
	cfg.Resources.MemoryMB = 32
	startTask(t, d, cfg)
	res := waitResult(t, d, cfg.ID)
	must.True(t, res.OOMKilled, must.Sprintf("result %+v, stderr %s", res, stderr(cfg)))
	must.StrNotContains(t, stdout(t, cfg), "survived")
}

func TestExec_WithinItsMemoryNoOOM(t *testing.T) {
	requireIsolation(t)
	d := newTestDriver(t, nil)
	cfg := newShellTask(t, `head -c 8000000 /dev/zero | tail -c 8000000 > /dev/null; echo survived`)
	cfg.Resources.MemoryMB = 64
	startTask(t, d, cfg)
	res := waitResult(t, d, cfg.ID)
	must.False(t, res.OOMKilled)
	must.Eq(t, 0, res.ExitCode)
	must.StrContains(t, stdout(t, cfg), "survived")
}

// taskProcesses returns the host pids of the processes in the task's
// cgroup, found through the task's own (host) pid.
func taskProcesses(t *testing.T, cfg string) []int {
	t.Helper()
	dir := ""
	switch isolate.CgroupVersion() {
	case 2:
		dir = filepath.Join("/sys/fs/cgroup/drover", cfg)
	default:
		own, err := os.ReadFile("/proc/self/cgroup")
		must.NoError(t, err)
		for _, line := range strings.Split(string(own), "\n") {
			parts := strings.SplitN(line, ":", 3)
			if len(parts) == 3 && slices.Contains(strings.Split(parts[1], ","), "memory") {
				dir = filepath.Join("/sys/fs/cgroup/memory", parts[2], "drover", cfg)
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		n, _ := strconv.Atoi(f)
		pids = append(pids, n)
	}
	return pids
}

func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// A zombie is dead, waiting to be reaped.
	rest := b[strings.LastIndexByte(string(b), ')')+2:]
	return len(rest) > 0 && rest[0] != 'Z'
}

// TestExec_StopKillsTheWholeTree: processes that left the task's process
// group and session die with it, in either PID mode.
func TestExec_StopKillsTheWholeTree(t *testing.T) {
	requireIsolation(t)
	for _, mode := range []string{"private", "host"} {
		t.Run(mode, func(t *testing.T) {
			plugin, err := ParsePluginConfig(map[string]any{"default_pid_mode": mode}, nil)
			must.NoError(t, err)
			d := newTestDriver(t, plugin)
			cfg := newShellTask(t, `setsid sleep 1000 & (trap '' INT TERM; sleep 1000) & sleep 1000 & echo started; wait`)
			startTask(t, d, cfg)
			name := isolate.CgroupName(cfg.ID)
			var pids []int
			waitfor.True(t, "the task's four processes", func() bool {
				pids = taskProcesses(t, name)
				return len(pids) >= 4
			}, wait.Timeout(exitTimeout))

			start := time.Now()
			must.NoError(t, d.StopTask(cfg.ID, 2*time.Second, "SIGINT"))
			t.Logf("stopped in %s", time.Since(start))
			for _, pid := range pids {
				waitfor.True(t, fmt.Sprintf("process %d to die", pid), func() bool { return !alive(pid) }, wait.Timeout(exitTimeout))
			}
			res := waitResult(t, d, cfg.ID)
			must.NonZero(t, res.Signal+res.ExitCode)
			must.False(t, res.OOMKilled)
		})
	}
}

func TestExec_RunsAsTheTaskUser(t *testing.T) {
	requireIsolation(t)
	d := newTestDriver(t, nil)
	cfg := newShellTask(t, `id -u; id -g; grep CapEff /proc/self/status`)
	cfg.User = "nobody"
	startTask(t, d, cfg)
	res := waitResult(t, d, cfg.ID)
	must.Eq(t, 0, res.ExitCode, must.Sprint(stderr(cfg)))
	lines := strings.Fields(stdout(t, cfg))
	must.Eq(t, "65534", lines[0])
	must.Eq(t, "CapEff:", lines[2])
	must.Eq(t, "0000000000000000", lines[3])
}

func TestExec_CapabilitiesWithinTheAllowList(t *testing.T) {
	requireIsolation(t)
	d := newTestDriver(t, nil)
	cfg := newShellTask(t, `grep CapBnd /proc/self/status`)
	cfg.Config["cap_drop"] = []any{"all"}
	cfg.Config["cap_add"] = []any{"CAP_CHOWN", "kill"}
	startTask(t, d, cfg)
	res := waitResult(t, d, cfg.ID)
	must.Eq(t, 0, res.ExitCode, must.Sprint(stderr(cfg)))
	// cap_drop goes first, as in Nomad: all dropped, then chown (0) and
	// kill (5) added.
	must.StrContains(t, stdout(t, cfg), "0000000000000021")

	bad := newShellTask(t, `true`)
	bad.Config["cap_add"] = []any{"sys_admin"}
	_, err := d.StartTask(bad)
	must.ErrorContains(t, err, `config key "cap_add": capability "sys_admin" is not allowed by this client`)
}

func TestExec_HostNamespacesOnlyWhereAllowed(t *testing.T) {
	requireIsolation(t)
	d := newTestDriver(t, nil)
	cfg := newShellTask(t, `true`)
	cfg.Config["ipc_mode"] = "host"
	_, err := d.StartTask(cfg)
	must.ErrorContains(t, err, `config key "ipc_mode": "host" is not allowed by this client`)
}

func TestExec_MissingCommandFailsToStart(t *testing.T) {
	requireIsolation(t)
	d := newTestDriver(t, nil)
	cfg := newShellTask(t, `true`)
	cfg.Config["command"] = "/no/such/binary"
	_, err := d.StartTask(cfg)
	must.ErrorContains(t, err, "/no/such/binary")
}

// TestExec_TaskDirsAsTheTaskSeesThem: the client interpolates host paths
// into the config and environment; the task gets them in its root.
func TestExec_TaskDirsAsTheTaskSeesThem(t *testing.T) {
	requireIsolation(t)
	d := newTestDriver(t, nil)
	cfg := newShellTask(t, `echo "$NOMAD_TASK_DIR $NOMAD_ALLOC_DIR $NOMAD_SECRETS_DIR $OUT $1"; echo hi > "$1"`)
	cfg.Config["args"] = append(cfg.Config["args"].([]any), "sh", filepath.Join(cfg.TaskDir, "local", "arg.txt"))
	cfg.Env["NOMAD_TASK_DIR"] = filepath.Join(cfg.TaskDir, "local")
	cfg.Env["NOMAD_ALLOC_DIR"] = cfg.AllocDir
	cfg.Env["NOMAD_SECRETS_DIR"] = filepath.Join(cfg.TaskDir, "secrets")
	cfg.Env["OUT"] = filepath.Join(cfg.AllocDir, "data", "out")
	startTask(t, d, cfg)
	res := waitResult(t, d, cfg.ID)
	must.Eq(t, 0, res.ExitCode, must.Sprint(stderr(cfg)))
	must.Eq(t, "/local /alloc /secrets /alloc/data/out /local/arg.txt\n", stdout(t, cfg))
	b, err := os.ReadFile(filepath.Join(cfg.TaskDir, "local", "arg.txt"))
	must.NoError(t, err)
	must.Eq(t, "hi\n", string(b))
}

// TestExec_StopIsPromptForAnUnhandledSignal: /bin/sleep as PID 1 handles
// no SIGINT, which would leave it running until the kill timeout; it is
// ended at once, as the signal's default action would end it elsewhere.
// A PID 1 that handles the signal gets it.
func TestExec_StopIsPromptForAnUnhandledSignal(t *testing.T) {
	requireIsolation(t)
	d := newTestDriver(t, nil)
	cfg := newShellTask(t, "")
	cfg.Config = map[string]any{"command": "/bin/sleep", "args": []any{"1000"}}
	startTask(t, d, cfg)
	start := time.Now()
	must.NoError(t, d.StopTask(cfg.ID, time.Minute, "SIGINT"))
	must.Less(t, 20*time.Second, time.Since(start), must.Sprint("the stop waited for the kill timeout"))
	res := waitResult(t, d, cfg.ID)
	must.Eq(t, int(syscall.SIGKILL), res.Signal)

	handled := newShellTask(t, `trap 'echo got INT; exit 3' INT; while :; do sleep 0.1; done`)
	handled.ID += "-handled"
	startTask(t, d, handled)
	waitfor.True(t, "the shell's trap", func() bool {
		st, err := d.InspectTask(handled.ID)
		return err == nil && st.DriverAttributes["pid"] != "" && trapped(st.DriverAttributes["pid"])
	}, wait.Timeout(exitTimeout))
	must.NoError(t, d.StopTask(handled.ID, time.Minute, "SIGINT"))
	res = waitResult(t, d, handled.ID)
	must.Eq(t, 3, res.ExitCode)
	must.StrContains(t, stdout(t, handled), "got INT")
}

// trapped reports whether the process handles SIGINT.
func trapped(pid string) bool {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "SigCgt:"); ok {
			mask, _ := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return mask&(1<<(int(syscall.SIGINT)-1)) != 0
		}
	}
	return false
}

// TestExec_TaskStatsFromItsCgroup: the driver reads a running task's use
// from its cgroup, where the machine's cgroups account for CPU; where
// they do not it says so, and the client reads the task's processes.
func TestExec_TaskStatsFromItsCgroup(t *testing.T) {
	requireIsolation(t)
	d := newTestDriver(t, nil)
	cfg := newShellTask(t, `head -c 8000000 /dev/zero | tail -c 1 >/dev/null; echo ready; sleep 1000`)
	startTask(t, d, cfg)
	waitfor.True(t, "the task to be ready", func() bool { return strings.Contains(stdout(t, cfg), "ready") }, wait.Timeout(exitTimeout))
	u, err := d.TaskStats(t.Context(), cfg.ID)
	if err != nil {
		must.ErrorContains(t, err, "no CPU accounting")
		t.Logf("no stats from the cgroup here: %v", err)
		return
	}
	must.Positive(t, u.MemoryUsage)
	must.Positive(t, u.CPUUser+u.CPUSystem)
}

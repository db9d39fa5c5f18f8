package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/internal/waitfor"
)

// requireRoot skips a test of the exec driver where the agent could not
// isolate tasks (it needs root), except in CI, which runs as root.
func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("the exec driver's e2e tests need root in CI")
		}
		t.Skip("the exec driver's e2e tests need root")
	}
}

// processesWithArg returns the host's live processes whose command line
// has arg as an argument.
func processesWithArg(arg string) []string {
	var out []string
	matches, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, m := range matches {
		b, err := os.ReadFile(m)
		if err != nil {
			continue
		}
		if bytes.Contains(b, []byte("\x00"+arg+"\x00")) {
			out = append(out, filepath.Base(filepath.Dir(m)))
		}
	}
	return out
}

// TestExec_MaxRunDurationKillsTheWholeTree runs an exec task whose
// processes leave its process group and session, and checks that
// max_run_duration ends it on time and every one of them with it.
func TestExec_MaxRunDurationKillsTheWholeTree(t *testing.T) {
	skipShort(t)
	requireRoot(t)
	t.Parallel()
	a := startDevAgent(t)
	marker := fmt.Sprint(900000 + os.Getpid()%99999)
	a.runJob(fmt.Sprintf(`job "exectree" {
  type = "batch"
  group "g" {
    max_run_duration = "4s"
    task "t" {
      driver = "exec"
      config {
        command = "/bin/sh"
        args    = ["-c", "setsid sleep %[1]s & (trap '' INT TERM; sleep %[1]s) & sleep %[1]s"]
      }
      resources {
        cpu    = 100
        memory = 64
      }
    }
  }
}`, marker))
	a.waitRunning("exectree")
	waitfor.True(t, "the task's three sleeps", func() bool { return len(processesWithArg(marker)) == 3 }, wait.Timeout(30*time.Second))

	done := a.mustTimeOut("exectree", "t", 4*time.Second)
	must.Eq(t, api.AllocClientStatusComplete, done.ClientStatus)
	must.SliceEmpty(t, processesWithArg(marker), must.Sprint("processes of the task outlived it"))
}

// TestExec_OOMReported runs an exec task over its memory limit: the
// kernel kills it and the task's Terminated event says so as Nomad's
// does.
func TestExec_OOMReported(t *testing.T) {
	skipShort(t)
	requireRoot(t)
	t.Parallel()
	a := startDevAgent(t)
	a.runJob(`job "execoom" {
  type = "batch"
  group "g" {
    restart { attempts = 0 }
    reschedule { attempts = 0 }
    task "t" {
      driver = "exec"
      config {
        command = "/bin/sh"
        args    = ["-c", "head -c 200000000 /dev/zero | tail -c 200000000 > /dev/null"]
      }
      resources {
        cpu    = 100
        memory = 32
      }
    }
  }
}`)
	done := a.waitAllocs("execoom", 1, "failed", 60*time.Second, clientStatus(api.AllocClientStatusFailed))[0]
	ev := event(task(t, done, "t"), "Terminated")
	must.NotNil(t, ev)
	must.Eq(t, "true", ev.Details["oom_killed"])
	must.Eq(t, 128+9, ev.ExitCode, must.Sprint("the shell reports its pipeline's SIGKILL"))
	must.StrContains(t, ev.DisplayMessage, "OOM Killed")
}

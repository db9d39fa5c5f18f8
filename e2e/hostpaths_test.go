package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/internal/dockertest"
)

// writeOnlyRules is what the report that led to TestHostPaths_WriteToken
// held: write on one namespace, and no submit-raw-exec.
const writeOnlyRules = `namespace "default" { policy = "write" }`

// TestHostPaths_WriteToken replays the report: a token with nothing but
// write on one namespace runs docker jobs whose tasks leave links in
// their allocation directory to a directory of the machine (the test's,
// standing for /), for a sibling's volume and for the next task's /alloc.
// The tasks that would have had the machine's directory fail to start,
// saying why, and the directory is left as it was.
func TestHostPaths_WriteToken(t *testing.T) {
	t.Parallel()
	skipShort(t)
	dockertest.Engine(t)
	reg := dockertest.NewRegistry(t)
	img := dockertest.PushImage(t, reg, dockertest.ImageOptions{})
	a, _ := startACLDevAgent(t)
	_, err := a.api.ACLPolicies().Upsert(&api.ACLPolicy{Name: "writer", Rules: writeOnlyRules}, nil)
	must.NoError(t, err)
	token := a.createToken("writer", "writer")
	writer, err := api.NewClient(&api.Config{Address: a.Addr, Token: token.SecretID})
	must.NoError(t, err)

	host := t.TempDir()
	must.NoError(t, os.WriteFile(filepath.Join(host, "sentinel"), []byte("host"), 0o640))

	cases := []struct {
		name    string
		planter string // the prestart task's config
		victim  string // the main task's config
		want    []string
	}{{
		name:    "sibling volume",
		planter: fmt.Sprintf(`args = ["await", "/local/go", "symlink", %q, "/alloc/x"]`, host),
		victim:  `volumes = ["../alloc/x:/host"]` + "\n" + `args = ["write", "/host/pwned", "x", "cat", "/host/sentinel"]`,
		want:    []string{`config key "volumes": entry 0 ("../alloc/x")`, "leaves its directory"},
	}, {
		name:    "alloc replaced",
		planter: `volumes = ["..:/all"]` + "\n" + fmt.Sprintf(`args = ["await", "/local/go", "rename", "/all/alloc", "/all/alloc.old", "symlink", %q, "/all/alloc"]`, host),
		victim:  `args = ["write", "/alloc/pwned", "x", "cat", "/alloc/sentinel"]`,
		want:    []string{"the allocation's alloc directory", "is a symbolic link"},
	}}
	for i, c := range cases {
		jobID := fmt.Sprintf("hostpaths-%d", i)
		job := a.parseJob(fmt.Sprintf(`job %[1]q {
  type = "batch"
  group "g" {
    restart {
      attempts = 0
      mode     = "fail"
    }
    reschedule {
      attempts  = 0
      unlimited = false
    }
    task "planter" {
      driver = "docker"
      lifecycle { hook = "prestart" }
      config {
        image = %[2]q
        %[3]s
      }
    }
    task "victim" {
      driver = "docker"
      config {
        image = %[2]q
        %[4]s
      }
    }
  }
}`, jobID, img.Ref, c.planter, c.victim))
		_, _, err := writer.Jobs().Register(job, nil)
		must.NoError(t, err, must.Sprint(c.name))

		// The planter plants its links once it runs, as a task would:
		// after the client and the driver have set it up.
		running := a.waitAllocs(jobID, 1, "the planter running", 60*time.Second, taskRunning("planter"))[0]
		must.NoError(t, os.WriteFile(filepath.Join(a.dir, "alloc", running.ID, "planter", "local", "go"), nil, 0o644))
		alloc := a.waitAlloc(running.ID, "terminal", 60*time.Second, terminal)
		must.SliceEmpty(t, hostEntries(t, host), must.Sprintf("%s: nothing may be made in the host directory", c.name))
		must.Eq(t, api.AllocClientStatusFailed, alloc.ClientStatus, must.Sprint(c.name))
		planter := task(t, alloc, "planter")
		must.NotNil(t, event(planter, "Terminated"), must.Sprintf("%s: planter: %q", c.name, eventMessages(planter)))
		must.Eq(t, 0, event(planter, "Terminated").ExitCode, must.Sprint(c.name))
		victim := task(t, alloc, "victim")
		must.True(t, victim.StartedAt.IsZero(), must.Sprintf("%s: the victim started", c.name))
		msgs := eventMessages(victim)
		for _, want := range c.want {
			must.True(t, slices.ContainsFunc(msgs, func(m string) bool { return strings.Contains(m, want) }),
				must.Sprintf("%s: no event says %q: %q", c.name, want, msgs))
		}
	}
	b, err := os.ReadFile(filepath.Join(host, "sentinel"))
	must.NoError(t, err)
	must.Eq(t, "host", string(b))
}

// taskRunning holds once the named task runs.
func taskRunning(name string) func(*api.Allocation) error {
	return func(alloc *api.Allocation) error {
		if ts := alloc.TaskStates[name]; ts == nil || ts.State != api.TaskStateRunning {
			return fmt.Errorf("%w: task %s is not running", errNotYet, name)
		}
		return nil
	}
}

// hostEntries lists what is in dir besides its sentinel.
func hostEntries(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	must.NoError(t, err)
	var out []string
	for _, e := range entries {
		if e.Name() != "sentinel" {
			out = append(out, e.Name())
		}
	}
	return out
}

// eventMessages lists the display messages of a task's events.
func eventMessages(ts *api.TaskState) []string {
	var out []string
	for _, ev := range ts.Events {
		out = append(out, ev.DisplayMessage)
	}
	return out
}

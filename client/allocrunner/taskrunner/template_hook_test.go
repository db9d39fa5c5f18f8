package taskrunner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/internal/tasktest"
	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/drivers/rawexec"
	"github.com/drover-io/drover/internal/beneath/beneathtest"
	"github.com/drover-io/drover/internal/template/templatetest"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

func withVariables(v VariableSources) harnessOpt {
	return func(c *Config) { c.Variables = v }
}

// tmpl is a canonical template block writing data to dest.
func tmpl(dest, data string) *structs.Template {
	t := &structs.Template{DestPath: dest, EmbeddedTmpl: data}
	t.Splay = 0
	return canonicalTemplate(t)
}

func canonicalTemplate(t *structs.Template) *structs.Template {
	task := &structs.Task{Templates: []*structs.Template{t}}
	job := &structs.Job{TaskGroups: []*structs.TaskGroup{{Tasks: []*structs.Task{task}}}}
	job.Canonicalize()
	return task.Templates[0]
}

func (h *harness) waitRunning() {
	h.t.Helper()
	waitfor.True(h.t, "the task runs", func() bool { return h.tr.TaskState().State == structs.TaskStateRunning })
}

// TestTemplateHook_rendersBeforeStart: each template is written before
// the task starts, where Nomad puts it, with its mode; an env = true one
// is in the task's environment.
func TestTemplateHook_rendersBeforeStart(t *testing.T) {
	task := testTask("web", map[string]any{"run_for": "1h"})
	srcTmpl := tmpl("local/from-source.txt", "")
	srcTmpl.EmbeddedTmpl, srcTmpl.SourcePath = "", "local/in.tpl"
	secret := tmpl("/local/secret.txt", `name={{ env "NOMAD_TASK_NAME" }}`)
	secret.Perms = "0600"
	envTmpl := tmpl("${NOMAD_SECRETS_DIR}/env.txt", "# comment\n  export GREETING=\"hello world\"\n\nPLAIN=a=b\n")
	envTmpl.Envvars = true
	task.Templates = []*structs.Template{secret, srcTmpl, envTmpl, tmpl("../alloc/shared.txt", `{{ "shared" | toUpper }}`)}

	h := newBatchHarness(t, task)
	rec := &recordingDriver{Driver: h.driver}
	h.catalog = drivers.NewCatalog(rec)
	h.tr = h.newRunner()
	must.NoError(t, h.taskDir.Build())
	must.NoError(t, os.WriteFile(filepath.Join(h.taskDir.LocalDir, "in.tpl"), []byte(`dc={{ env "NOMAD_DC" }};{{ 1 | add 1 }}`), 0o644))
	h.run()
	h.waitRunning()
	defer h.kill(nil)

	must.Eq(t, "name=web", readFile(t, filepath.Join(h.taskDir.LocalDir, "secret.txt")))
	fi, err := os.Stat(filepath.Join(h.taskDir.LocalDir, "secret.txt"))
	must.NoError(t, err)
	must.Eq(t, os.FileMode(0o600), fi.Mode().Perm())
	must.Eq(t, "dc=;2", readFile(t, filepath.Join(h.taskDir.LocalDir, "from-source.txt")))
	must.Eq(t, "SHARED", readFile(t, filepath.Join(h.taskDir.SharedDir, "shared.txt")))
	must.FileExists(t, filepath.Join(h.taskDir.SecretsDir, "env.txt"))
	env := rec.lastStarted(t).Env
	must.Eq(t, "hello world", env["GREETING"])
	must.Eq(t, "a=b", env["PLAIN"])
}

// TestTemplateHook_failuresFailTheStart: a render that fails fails the
// task's start with a Setup Failure that says which template and why.
func TestTemplateHook_failuresFailTheStart(t *testing.T) {
	missing := tmpl("local/a", `{{ with parseJSON "{\"a\":1}" }}{{ .b }}{{ end }}`)
	missing.ErrMissingKey = true
	badEnv := tmpl("local/env", "not a pair")
	badEnv.Envvars = true
	sourceLink := tmpl("local/b", "")
	sourceLink.EmbeddedTmpl, sourceLink.SourcePath = "", "local/link.tpl"
	cases := map[string]struct {
		tmpl  *structs.Template
		setup func(t *testing.T, h *harness)
		want  string
	}{
		"missing key": {tmpl: missing, want: `template #1 (local/a): template: task "web" template #1 (local/a):1:35: executing "task \"web\" template #1 (local/a)" at <.b>: map has no entry for key "b"`},
		"env line":    {tmpl: badEnv, want: `template #1 (local/env): env: line 1 is not KEY=VALUE`},
		"consul function in a source": {
			tmpl: sourceLink, want: `function "key" needs a Consul server`,
			setup: func(t *testing.T, h *harness) {
				must.NoError(t, os.WriteFile(filepath.Join(h.taskDir.LocalDir, "link.tpl"), []byte(`{{ key "x" }}`), 0o644))
			}},
		"source is a link out": {
			tmpl: sourceLink, want: "is a symbolic link",
			setup: func(t *testing.T, h *harness) {
				must.NoError(t, os.Symlink("/etc/hostname", filepath.Join(h.taskDir.LocalDir, "link.tpl")))
			}},
		"file of another task":      {tmpl: tmpl("local/d", `{{ file "../other/secrets/token" }}`), want: "is outside the task's directory"},
		"nomadVar without a source": {tmpl: tmpl("local/c", `{{ nomadVar "nomad/jobs/x" }}`), want: "this client cannot read Nomad variables"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			task := testTask("web", map[string]any{"run_for": "1h"})
			task.Templates = []*structs.Template{tc.tmpl}
			h := newBatchHarness(t, task)
			must.NoError(t, h.taskDir.Build())
			if tc.setup != nil {
				tc.setup(t, h)
			}
			h.run()
			ts := h.waitDead()
			must.True(t, ts.Failed)
			must.True(t, ts.StartedAt.IsZero())
			ev := tasktest.LastEvent(ts, structs.TaskSetupFailure)
			must.NotNil(t, ev, must.Sprintf("events: %v", tasktest.EventTypes(ts)))
			must.StrContains(t, ev.DisplayMessage, tc.want)
		})
	}
}

// TestTemplateHook_destinationsStayInside: a destination that leads out
// of the allocation directory through a link the task planted is
// refused, and nothing outside changes; a link in the file's own place is
// replaced, not followed.
func TestTemplateHook_destinationsStayInside(t *testing.T) {
	t.Run("directory linked out", func(t *testing.T) {
		host := beneathtest.HostDir(t)
		task := testTask("web", map[string]any{"run_for": "1h"})
		task.Templates = []*structs.Template{tmpl("local/out/x.txt", "pwned")}
		h := newBatchHarness(t, task)
		must.NoError(t, h.taskDir.Build())
		must.NoError(t, os.Symlink(host, filepath.Join(h.taskDir.LocalDir, "out")))
		h.run()
		ts := h.waitDead()
		ev := tasktest.LastEvent(ts, structs.TaskSetupFailure)
		must.NotNil(t, ev)
		must.StrContains(t, ev.DisplayMessage, "is a symbolic link")
		beneathtest.Unchanged(t, host)
	})
	t.Run("file linked out", func(t *testing.T) {
		host := beneathtest.HostDir(t)
		task := testTask("web", map[string]any{"run_for": "1h"})
		task.Templates = []*structs.Template{tmpl("local/x.txt", "rendered")}
		h := newBatchHarness(t, task)
		must.NoError(t, h.taskDir.Build())
		dest := filepath.Join(h.taskDir.LocalDir, "x.txt")
		must.NoError(t, os.Symlink(filepath.Join(host, "sentinel"), dest))
		h.run()
		h.waitRunning()
		defer h.kill(nil)
		fi, err := os.Lstat(dest)
		must.NoError(t, err)
		must.True(t, fi.Mode().IsRegular())
		must.Eq(t, "rendered", readFile(t, dest))
		beneathtest.Unchanged(t, host)
	})
	t.Run("climbs out", func(t *testing.T) {
		// Validation refuses it at submit; the client does not rely on it.
		task := testTask("web", map[string]any{"run_for": "1h"})
		task.Templates = []*structs.Template{tmpl("local/${NOMAD_META_up}/x", "x")}
		task.Meta = map[string]string{"up": "../../.."}
		h := newBatchHarness(t, task)
		h.run()
		ts := h.waitDead()
		ev := tasktest.LastEvent(ts, structs.TaskSetupFailure)
		must.NotNil(t, ev)
		must.StrContains(t, ev.DisplayMessage, "destination")
	})
}

// TestTemplateHook_blockedRenderEndsAtTheDeadline: a render waiting on
// variables that never come counts against the task's max_run_duration,
// which kills it on time.
func TestTemplateHook_blockedRenderEndsAtTheDeadline(t *testing.T) {
	task := testTask("web", map[string]any{"run_for": "1h"})
	task.MaxRunDuration = new(time.Second)
	task.Templates = []*structs.Template{tmpl("local/x", `{{ nomadVar "nomad/jobs/x" }}`)}
	h := newBatchHarness(t, task, withVariables(templatetest.Unreachable{}))
	h.run()
	ts := h.waitDead()
	must.True(t, ts.MaxRunExceeded)
	must.True(t, ts.StartedAt.IsZero())
}

// rawExecHarness runs task with the real raw_exec driver.
func rawExecHarness(t *testing.T, task *structs.Task, opts ...harnessOpt) *harness {
	t.Helper()
	exe, err := os.Executable()
	must.NoError(t, err)
	drv := rawexec.New(nil, rawexec.Config{Enabled: true, SupervisorCmd: []string{"/usr/bin/env", supervisorTestEnv + "=1", exe}})
	t.Cleanup(drv.Shutdown)
	h := newBatchHarness(t, task, append(opts, withDrivers(drivers.NewCatalog(drv)))...)
	t.Cleanup(func() {
		if t.Failed() {
			for _, ev := range h.tr.TaskState().Events {
				t.Logf("event %s: %s", ev.Type, ev.DisplayMessage)
			}
		}
		if !h.tr.IsDead() {
			h.kill(nil)
		}
	})
	return h
}

// shTask is a raw_exec task running a shell script.
func shTask(script string) *structs.Task {
	task := tasktest.Task("web", rawexec.DriverName, map[string]any{"command": "/bin/sh", "args": []any{"-c", script}})
	task.KillTimeout = 2 * time.Second
	return task
}

// varTemplate renders nomad/jobs/app's "v" to local/v.txt.
func varTemplate(mode string) *structs.Template {
	t := tmpl("local/v.txt", `v={{ with nomadVar "nomad/jobs/app" }}{{ .v }}{{ end }}`)
	t.ChangeMode = mode
	return canonicalTemplate(t)
}

func fileHas(t *testing.T, path, want string) {
	t.Helper()
	waitfor.True(t, path+" holds "+want, func() bool {
		b, err := os.ReadFile(path)
		return err == nil && strings.Contains(string(b), want)
	})
}

// TestTemplateHook_changeModes: a variable change re-renders the file
// and applies its change_mode to a real running process.
func TestTemplateHook_changeModes(t *testing.T) {
	t.Run("signal", func(t *testing.T) {
		vars := templatetest.NewVariables()
		vars.Put("default", "nomad/jobs/app", map[string]string{"v": "1"})
		// The process reads the file when signalled.
		task := shTask(`trap 'cat local/v.txt > local/seen.txt' USR1; echo ready > local/ready; while true; do sleep 0.1; done`)
		vt := varTemplate(structs.TemplateChangeModeSignal)
		vt.ChangeSignal = "SIGUSR1"
		task.Templates = []*structs.Template{vt}
		h := rawExecHarness(t, task, withVariables(vars))
		h.run()
		fileHas(t, filepath.Join(h.taskDir.LocalDir, "ready"), "ready")
		must.Eq(t, "v=1", readFile(t, filepath.Join(h.taskDir.LocalDir, "v.txt")))

		vars.Put("default", "nomad/jobs/app", map[string]string{"v": "2"})
		fileHas(t, filepath.Join(h.taskDir.LocalDir, "seen.txt"), "v=2")
		ts := h.tr.TaskState()
		must.NotNil(t, tasktest.LastEvent(ts, structs.TaskSignaling))
		must.Eq(t, uint64(0), ts.Restarts)
	})
	t.Run("restart", func(t *testing.T) {
		vars := templatetest.NewVariables()
		vars.Put("default", "nomad/jobs/app", map[string]string{"v": "1"})
		// Each run appends the environment the template gave it.
		task := shTask(`echo "run $V" >> local/runs.txt; while true; do sleep 0.1; done`)
		envTmpl := varTemplate(structs.TemplateChangeModeRestart)
		envTmpl.DestPath, envTmpl.Envvars = "secrets/v.env", true
		envTmpl.EmbeddedTmpl = `V={{ with nomadVar "nomad/jobs/app" }}{{ .v }}{{ end }}`
		task.Templates = []*structs.Template{envTmpl}
		h := rawExecHarness(t, task, withVariables(vars))
		h.run()
		runs := filepath.Join(h.taskDir.LocalDir, "runs.txt")
		fileHas(t, runs, "run 1")

		vars.Put("default", "nomad/jobs/app", map[string]string{"v": "2"})
		fileHas(t, runs, "run 2")
		must.Eq(t, "run 1\nrun 2\n", readFile(t, runs))
		h.waitRunning()
		must.NotNil(t, tasktest.LastEvent(h.tr.TaskState(), structs.TaskRestartSignal))

		// The restarted run watches too.
		vars.Put("default", "nomad/jobs/app", map[string]string{"v": "3"})
		fileHas(t, runs, "run 3")
	})
	t.Run("script", func(t *testing.T) {
		vars := templatetest.NewVariables()
		vars.Put("default", "nomad/jobs/app", map[string]string{"v": "1"})
		task := shTask(`echo ready > local/ready; while true; do sleep 0.1; done`)
		vt := varTemplate(structs.TemplateChangeModeScript)
		vt.ChangeScript = &structs.ChangeScript{Command: "/bin/sh", Args: []string{"-c", `cp local/v.txt local/script-saw.txt`}, Timeout: 10 * time.Second}
		task.Templates = []*structs.Template{vt}
		h := rawExecHarness(t, task, withVariables(vars))
		h.run()
		fileHas(t, filepath.Join(h.taskDir.LocalDir, "ready"), "ready")

		vars.Put("default", "nomad/jobs/app", map[string]string{"v": "2"})
		fileHas(t, filepath.Join(h.taskDir.LocalDir, "script-saw.txt"), "v=2")
		waitfor.True(t, "the script's event", func() bool {
			ev := tasktest.LastEvent(h.tr.TaskState(), structs.TaskHookMessage)
			return ev != nil && strings.Contains(ev.DisplayMessage, "ran script /bin/sh")
		})
	})
	t.Run("script fails the task", func(t *testing.T) {
		vars := templatetest.NewVariables()
		vars.Put("default", "nomad/jobs/app", map[string]string{"v": "1"})
		task := shTask(`echo ready > local/ready; while true; do sleep 0.1; done`)
		vt := varTemplate(structs.TemplateChangeModeScript)
		vt.ChangeScript = &structs.ChangeScript{Command: "/bin/sh", Args: []string{"-c", "echo broken; exit 3"}, Timeout: 10 * time.Second, FailOnError: true}
		task.Templates = []*structs.Template{vt}
		h := rawExecHarness(t, task, withVariables(vars))
		h.run()
		fileHas(t, filepath.Join(h.taskDir.LocalDir, "ready"), "ready")

		vars.Put("default", "nomad/jobs/app", map[string]string{"v": "2"})
		ts := h.waitDead()
		ev := tasktest.LastEvent(ts, structs.TaskKilling)
		must.NotNil(t, ev)
		must.StrContains(t, ev.DisplayMessage, "exit code 3: broken")
	})
	t.Run("noop", func(t *testing.T) {
		vars := templatetest.NewVariables()
		vars.Put("default", "nomad/jobs/app", map[string]string{"v": "1"})
		task := shTask(`echo "run" >> local/runs.txt; while true; do sleep 0.1; done`)
		task.Templates = []*structs.Template{varTemplate(structs.TemplateChangeModeNoop)}
		h := rawExecHarness(t, task, withVariables(vars))
		h.run()
		fileHas(t, filepath.Join(h.taskDir.LocalDir, "runs.txt"), "run")

		vars.Put("default", "nomad/jobs/app", map[string]string{"v": "2"})
		fileHas(t, filepath.Join(h.taskDir.LocalDir, "v.txt"), "v=2")
		ts := h.tr.TaskState()
		must.Nil(t, tasktest.LastEvent(ts, structs.TaskRestartSignal))
		must.Nil(t, tasktest.LastEvent(ts, structs.TaskSignaling))
		must.Eq(t, "run\n", readFile(t, filepath.Join(h.taskDir.LocalDir, "runs.txt")))
	})
}

// TestTemplateHook_resumesAfterAgentRestart: a task the runner re-attached
// to after an agent restart gets what changed while the agent was down,
// and its templates are watched again.
func TestTemplateHook_resumesAfterAgentRestart(t *testing.T) {
	vars := templatetest.NewVariables()
	vars.Put("default", "nomad/jobs/app", map[string]string{"v": "1"})
	task := testTask("web", map[string]any{"run_for": "1h"})
	task.Templates = []*structs.Template{varTemplate(structs.TemplateChangeModeNoop)}
	h := newBatchHarness(t, task, withVariables(vars))
	h.run()
	h.waitRunning()
	path := filepath.Join(h.taskDir.LocalDir, "v.txt")
	must.Eq(t, "v=1", readFile(t, path))

	h.tr.Shutdown()
	vars.Put("default", "nomad/jobs/app", map[string]string{"v": "2"})
	h.tr = h.newRunner(withVariables(vars))
	must.NoError(t, h.tr.Restore())
	h.run()
	defer h.kill(nil)
	fileHas(t, path, "v=2")

	vars.Put("default", "nomad/jobs/app", map[string]string{"v": "3"})
	fileHas(t, path, "v=3")
	must.Eq(t, 1, tasktest.CountEvents(h.tr.TaskState(), structs.TaskStarted))
}

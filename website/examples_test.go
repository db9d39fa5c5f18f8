package website

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/cli"
	"github.com/hashicorp/cronexpr"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/command"
	"github.com/drover-io/drover/command/agent"
	"github.com/drover-io/drover/jobcheck"
	"github.com/drover-io/drover/jobspec2"
	"github.com/drover-io/drover/structs"
)

var examplesDir = filepath.Join(repoRoot, "examples")

// The examples the documentation and the end-to-end suite rely on.
const (
	exampleMaxRun         = "maxrun.hcl"
	exampleMaxRunPoststop = "maxrun-poststop.hcl"
	exampleSysbatch       = "sysbatch.hcl"
	examplePeriodic       = "periodic-maxrun.hcl"
	exampleSlowArtifact   = "slow-artifact.hcl"
	exampleMaxRunDocker   = "maxrun-docker.hcl"
)

// TestExamples_Validate holds that every examples/*.hcl passes
// `drover job validate`, run as the CLI runs it, and the parse, convert,
// canonicalise and validate steps one by one; that every task runs
// raw_exec with /bin/sleep or /bin/sh, so the examples run on any Linux
// machine (or docker with an image, in the example that shows a container); that every group bounds its run time; and that examples/README.md
// links every example.
func TestExamples_Validate(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(examplesDir, "*.hcl"))
	must.NoError(t, err)
	for _, want := range []string{exampleMaxRun, exampleMaxRunPoststop, exampleSysbatch, examplePeriodic, exampleSlowArtifact, exampleMaxRunDocker} {
		must.SliceContains(t, files, filepath.Join(examplesDir, want), must.Sprintf("examples/%s is missing", want))
	}
	readme, err := os.ReadFile(filepath.Join(examplesDir, "README.md"))
	must.NoError(t, err)
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			code, stderr := runCLI(t, "job", "validate", path)
			must.Eq(t, 0, code, must.Sprintf("drover job validate %s: %s", name, stderr))

			job := validExample(t, name, nil)
			for _, tg := range job.TaskGroups {
				must.NotNil(t, tg.MaxRunDuration, must.Sprintf("group %q sets no max_run_duration", tg.Name))
				for _, task := range tg.Tasks {
					if task.Driver == "docker" {
						// A container needs only its image; the e2e suite runs
						// it against a registry of the test's own.
						must.NotEq(t, "", task.Config["image"], must.Sprintf("task %q", task.Name))
						continue
					}
					must.Eq(t, "raw_exec", task.Driver, must.Sprintf("task %q", task.Name))
					must.SliceContains(t, []any{"/bin/sleep", "/bin/sh"}, task.Config["command"], must.Sprintf("task %q", task.Name))
				}
			}
			must.StrContains(t, string(readme), "("+name+")", must.Sprintf("examples/README.md does not link %s", name))
		})
	}
}

// TestExamples_MaxRun holds the example of the README's tour and the
// getting started guide as those show it.
func TestExamples_MaxRun(t *testing.T) {
	job := validExample(t, exampleMaxRun, nil)
	must.Eq(t, structs.JobTypeBatch, job.Type)
	tg := job.LookupTaskGroup("maxrun")
	must.NotNil(t, tg)
	must.Eq(t, 10*time.Second, *tg.MaxRunDuration)
	must.Eq[any](t, []any{"1000m"}, tg.LookupTask("maxrun").Config["args"])
	must.Eq[any](t, []any{"2s"}, tg.LookupTask("maxrun2").Config["args"])
}

// TestExamples_MaxRunDocker holds the headline job: maxrun.hcl's group,
// and a docker group of prom/prometheus (the image variable's default)
// with a 2 s budget.
func TestExamples_MaxRunDocker(t *testing.T) {
	job := validExample(t, exampleMaxRunDocker, nil)
	must.Eq(t, structs.JobTypeBatch, job.Type)
	design := validExample(t, exampleMaxRun, nil).LookupTaskGroup("maxrun")
	tg := job.LookupTaskGroup("maxrun")
	must.NotNil(t, tg)
	must.Eq(t, *design.MaxRunDuration, *tg.MaxRunDuration)
	for _, name := range []string{"maxrun", "maxrun2"} {
		must.Eq(t, design.LookupTask(name).Config, tg.LookupTask(name).Config)
	}
	docker := job.LookupTaskGroup("huge_docker_image")
	must.NotNil(t, docker)
	must.Eq(t, 2*time.Second, *docker.MaxRunDuration)
	task := docker.LookupTask("prometheus")
	must.Eq(t, "docker", task.Driver)
	must.Eq[any](t, "prom/prometheus", task.Config["image"])

	own := validExample(t, exampleMaxRunDocker, []string{"image=127.0.0.1:5000/prom/prometheus"})
	must.Eq[any](t, "127.0.0.1:5000/prom/prometheus", own.LookupTaskGroup("huge_docker_image").LookupTask("prometheus").Config["image"])
}

func TestExamples_Poststop(t *testing.T) {
	job := validExample(t, exampleMaxRunPoststop, nil)
	var poststop int
	for _, task := range job.TaskGroups[0].Tasks {
		if task.IsPoststop() {
			poststop++
		}
	}
	must.Eq(t, 1, poststop)
}

func TestExamples_Sysbatch(t *testing.T) {
	job := validExample(t, exampleSysbatch, nil)
	must.Eq(t, structs.JobTypeSysbatch, job.Type)
}

// TestExamples_PeriodicCannotOverlap holds the point of the periodic
// example: with prohibit_overlap, a run is over (max_run_duration, then
// the shutdown delays and kill_timeout) before the next launch comes due.
func TestExamples_PeriodicCannotOverlap(t *testing.T) {
	job := validExample(t, examplePeriodic, nil)
	must.True(t, job.IsPeriodic())
	must.True(t, job.Periodic.ProhibitOverlap)
	must.Eq(t, structs.JobTypeBatch, job.Type)

	gap := shortestLaunchGap(t, job.Periodic.CronSpecs(), 500)
	for _, tg := range job.TaskGroups {
		for _, task := range tg.Tasks {
			worst := *tg.MaxRunDuration + task.KillTimeout + task.ShutdownDelay
			if tg.ShutdownDelay != nil {
				worst += *tg.ShutdownDelay
			}
			must.Less(t, gap, worst, must.Sprintf("task %q may still run %s after launch; launches come %s apart", task.Name, worst, gap))
		}
	}
}

// TestExamples_SlowArtifactVariable holds that the artifact's source is the
// artifact_url variable, so tests can point it at their own server.
func TestExamples_SlowArtifactVariable(t *testing.T) {
	const url = "http://127.0.0.1:1/big.tar.gz"
	job := validExample(t, exampleSlowArtifact, []string{"artifact_url=" + url})
	arts := job.TaskGroups[0].Tasks[0].Artifacts
	must.SliceLen(t, 1, arts)
	must.Eq(t, url, arts[0].GetterSource)
	must.NotNil(t, job.TaskGroups[0].MaxRunDuration)

	code, stderr := runCLI(t, "job", "validate", "-var", "artifact_url="+url, filepath.Join(examplesDir, exampleSlowArtifact))
	must.Eq(t, 0, code, must.Sprint(stderr))
}

// validExample parses examples/name with vars, converts, canonicalises and
// validates it, as `drover job validate` does.
func validExample(t *testing.T, name string, vars []string) *structs.Job {
	t.Helper()
	apiJob, err := jobspec2.ParseWithConfig(&jobspec2.ParseConfig{
		Path:         filepath.Join(examplesDir, name),
		ArgVars:      vars,
		Strict:       true,
		CheckDrivers: true,
	})
	must.NoError(t, err)
	job := agent.CanonicalJob(apiJob)
	must.NoError(t, jobcheck.Submitted(job, structs.JobLimits{}))
	return job
}

// runCLI runs a drover command in-process and returns its exit code and
// error output.
func runCLI(t *testing.T, args ...string) (int, string) {
	t.Helper()
	ui := cli.NewMockUi()
	commands := command.Commands(command.Meta{Ui: ui, Stdin: strings.NewReader("")})
	for n := len(args); n > 0; n-- {
		factory, ok := commands[strings.Join(args[:n], " ")]
		if !ok {
			continue
		}
		cmd, err := factory()
		must.NoError(t, err)
		code := cmd.Run(args[n:])
		return code, ui.ErrorWriter.String()
	}
	t.Fatalf("no command in %q", args)
	return 0, ""
}

// shortestLaunchGap is the shortest time between two consecutive launches
// of the specs over their next n launches from a fixed start.
func shortestLaunchGap(t *testing.T, specs []string, n int) time.Duration {
	t.Helper()
	var exprs []*cronexpr.Expression
	for _, spec := range specs {
		e, err := cronexpr.Parse(spec)
		must.NoError(t, err)
		exprs = append(exprs, e)
	}
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var prev time.Time
	shortest := time.Duration(1<<63 - 1)
	for range n {
		var next time.Time
		for _, e := range exprs {
			if cand := e.Next(at); !cand.IsZero() && (next.IsZero() || cand.Before(next)) {
				next = cand
			}
		}
		if next.IsZero() {
			break
		}
		if !prev.IsZero() {
			shortest = min(shortest, next.Sub(prev))
		}
		prev, at = next, next
	}
	return shortest
}

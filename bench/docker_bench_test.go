package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/drivers/docker"
	"github.com/drover-io/drover/internal/dockertest"
	"github.com/drover-io/drover/structs"
)

// Targets of the docker benchmarks, side by side with raw_exec's.
const (
	dockerRuns                      = 10
	startRuns                       = 20
	targetDockerKillLatenessMedian  = 10 * time.Millisecond
	targetDockerKillLatenessMax     = 50 * time.Millisecond
	targetDockerPerTaskMiB          = 0.5
	targetDockerTogetherKillMax     = 100 * time.Millisecond
	targetDockerStartOverheadMedian = 20 * time.Millisecond
)

// dockerBenchImage pushes a testapp image to a registry of the
// benchmark's own and pulls it, so that the tasks start from an image
// already present, as a node that ran the job before does.
func dockerBenchImage(b *testing.B) (*client.Client, string) {
	b.Helper()
	engine := dockertest.Engine(b)
	img := dockertest.PushImage(b, dockertest.NewRegistry(b), dockertest.ImageOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pull, err := engine.ImagePull(ctx, img.Ref, client.ImagePullOptions{})
	if err == nil {
		err = pull.Wait(ctx)
	}
	if err != nil {
		b.Fatalf("pull %s: %v", img.Ref, err)
	}
	return engine, img.Ref
}

// dockerJob is a batch job of count allocations of one docker task of
// cpu MHz running testapp with args, stopped with SIGTERM, as wire JSON.
// A zero budget leaves max_run_duration unset.
//
// The task's CPU is its container's CPU shares: 1000 is about a process's
// default weight, as raw_exec's tasks have. With less, a container on a
// loaded machine waits its turn to handle the kill signal, and a kill
// lateness measures the machine's load, not the driver; with 20 tasks
// the node has room for less each.
func dockerJob(id string, count, cpu int, budget time.Duration, image string, args ...string) map[string]any {
	group := map[string]any{
		"Name": "g", "Count": count,
		"Tasks": []any{map[string]any{
			"Name": "t", "Driver": "docker", "KillSignal": "SIGTERM",
			"Config":    map[string]any{"image": image, "args": args},
			"Resources": map[string]any{"CPU": cpu, "MemoryMB": 32},
		}},
	}
	if budget > 0 {
		group["MaxRunDuration"] = int64(budget)
	}
	return map[string]any{
		"ID": id, "Name": id, "Type": "batch", "Datacenters": []string{"dc1"},
		"TaskGroups": []any{group},
	}
}

// sleeper is what the benchmarks' containers run: they sleep, and exit
// at once on SIGTERM, as /bin/sleep does on raw_exec's SIGINT.
var sleeper = []string{"trap", "SIGTERM", "0", "sleep", "1000s"}

// BenchmarkDocker_KillLateness runs dockerRuns single-allocation jobs one
// after another on one dev agent, a docker task then a raw_exec task each
// time, each with a 2 s max_run_duration, and reports, for each driver,
// how long after its deadline the task finished (the engine's FinishedAt
// for the container, the supervisor's for the process).
func BenchmarkDocker_KillLateness(b *testing.B) {
	const budget = 2 * time.Second
	_, image := dockerBenchImage(b)
	late := map[string][]time.Duration{}
	killing := map[string][]time.Duration{}
	for n := range b.N {
		p := startAgent(b, b.TempDir(), 0, 0, "-dev")
		p.waitUntil("node ready", pollGap, time.Minute, p.nodeReady)
		for i := range dockerRuns {
			jobs := map[string]map[string]any{
				"docker":   dockerJob(fmt.Sprintf("bench-docker-%d-%02d", n, i), 1, 1000, budget, image, sleeper...),
				"raw_exec": maxRunJob(fmt.Sprintf("bench-rawexec-%d-%02d", n, i), 1, budget),
			}
			for _, driver := range []string{"docker", "raw_exec"} {
				job := jobs[driver]
				if err := p.registerJob(job); err != nil {
					b.Fatal(err)
				}
				alloc := p.waitMaxRunAlloc(job["ID"].(string))
				_, done := p.watchUntilComplete(alloc.ID)
				if done.ClientDescription != "allocation exceeded max_run_duration" {
					b.Fatalf("allocation %s of %s ended %q, not by its deadline", done.ID, job["ID"], done.ClientDescription)
				}
				late[driver] = append(late[driver], done.killLateness())
				killing[driver] = append(killing[driver], done.eventLateness("Killing"))
			}
		}
		p.stop()
	}
	for _, driver := range []string{"raw_exec", "docker"} {
		b.Logf("%s: Killing event after the deadline: median %s, max %s", driver, median(killing[driver]), slices.Max(killing[driver]))
	}
	reportLateness(b, "raw_exec_kill_lateness", late["raw_exec"], targetKillLatenessMedian, targetKillLatenessMax)
	reportLateness(b, "docker_kill_lateness", late["docker"], targetDockerKillLatenessMedian, targetDockerKillLatenessMax)
}

// BenchmarkDocker_TwentyTogether runs one batch job of 20 docker
// allocations whose deadlines fall together, and reports the largest kill
// lateness among them. The budget leaves time for 20 containers to start
// on two cores before it runs out.
func BenchmarkDocker_TwentyTogether(b *testing.B) {
	const count = 20
	const budget = 20 * time.Second
	_, image := dockerBenchImage(b)
	var worst []time.Duration
	for n := range b.N {
		p := startAgent(b, b.TempDir(), 0, 0, "-dev")
		p.waitUntil("node ready", pollGap, time.Minute, p.nodeReady)
		id := fmt.Sprintf("bench-docker-together-%d", n)
		if err := p.registerJob(dockerJob(id, count, 100, budget, image, sleeper...)); err != nil {
			b.Fatal(err)
		}
		var allocs []maxRunAlloc
		p.waitUntil("20 allocations running", pollGap, time.Minute, p.jobAllocsAll(id, count, "running", &allocs))
		last := lastDeadline(allocs)
		if time.Until(last) < 0 {
			b.Fatalf("the 20 containers were not all running before their deadline")
		}
		// Leave the agent alone until the deadlines have passed.
		time.Sleep(time.Until(last.Add(time.Second)))
		p.waitUntil("20 allocations complete", pollGap, time.Minute, p.jobAllocsAll(id, count, "complete", &allocs))
		var lates, killings []time.Duration
		for _, a := range allocs {
			lates = append(lates, a.killLateness())
			killings = append(killings, a.eventLateness("Killing"))
		}
		b.Logf("after the deadline: Killing events median %s max %s; finished median %s max %s",
			median(killings), slices.Max(killings), median(lates), slices.Max(lates))
		worst = append(worst, slices.Max(lates))
		p.stop()
	}
	m := slices.Max(worst)
	b.ReportMetric(ms(m), "docker_together_kill_max_ms")
	b.Logf("20 docker allocations together: max kill lateness %s (target ≤ %s)", m, targetDockerTogetherKillMax)
}

// BenchmarkDocker_MemoryPerTask runs 40 docker tasks on one dev agent
// and reports what each adds to the agent's own memory (PSS): the
// containers are the engine's, and no process of Drover's runs per task.
// The agent has run one docker task before the idle figure is read, so
// that the driver's code is in memory in both figures.
func BenchmarkDocker_MemoryPerTask(b *testing.B) {
	const count = 40
	_, image := dockerBenchImage(b)
	for n := range b.N {
		p := startAgent(b, b.TempDir(), 0, 0, "-dev")
		p.waitUntil("node ready", pollGap, time.Minute, p.nodeReady)
		warm := fmt.Sprintf("bench-docker-warm-%d", n)
		if err := p.registerJob(dockerJob(warm, 1, 100, 0, image, "exit", "0")); err != nil {
			b.Fatal(err)
		}
		var allocs []maxRunAlloc
		p.waitUntil("the warm-up task complete", pollGap, time.Minute, p.jobAllocsAll(warm, 1, "complete", &allocs))
		time.Sleep(2 * time.Second) // memory at rest
		idle := memKiB(p.Pid(), "Pss")
		idleProcs := len(descendants(p.Pid()))

		id := fmt.Sprintf("bench-docker-mem-%d", n)
		if err := p.registerJob(dockerJob(id, count, 100, 0, image, sleeper...)); err != nil {
			b.Fatal(err)
		}
		p.waitUntil("40 allocations running", pollGap, 2*time.Minute, p.jobAllocsAll(id, count, "running", &allocs))
		time.Sleep(2 * time.Second) // memory at rest
		loaded := memKiB(p.Pid(), "Pss")
		procs := len(descendants(p.Pid()))
		perTask := float64(loaded-idle) / count / 1024
		b.ReportMetric(perTask, "MiB/task")
		b.Logf("agent memory per running docker task: %.3f MiB (agent PSS idle %.1f MiB, with %d containers %.1f MiB; processes under the agent: %d idle, %d loaded; target ≤ %.1f MiB)",
			perTask, float64(idle)/1024, count, float64(loaded)/1024, idleProcs, procs, targetDockerPerTaskMiB)
		p.stop()
	}
}

// BenchmarkDocker_StartOverhead starts a container from an image already
// present, startRuns times each way, alternating: through the driver's
// StartTask, and bare, with the same client's create and start of the
// same image and command (`docker run -d`). It reports the medians and
// the driver's overhead, the difference of the medians.
func BenchmarkDocker_StartOverhead(b *testing.B) {
	engine, image := dockerBenchImage(b)
	drv := docker.New(hclog.NewNullLogger(), docker.DefaultPluginConfig())
	defer drv.Shutdown()
	var viaDriver, bare []time.Duration
	runDriver := func(n, i int) {
		cfg := benchTaskConfig(b, image, n, i)
		start := time.Now()
		if _, err := drv.StartTask(cfg); err != nil {
			b.Fatal(err)
		}
		viaDriver = append(viaDriver, time.Since(start))
		if err := drv.DestroyTask(cfg.ID, true); err != nil {
			b.Fatal(err)
		}
	}
	runBare := func() {
		start := time.Now()
		id := bareRun(b, engine, image)
		bare = append(bare, time.Since(start))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := engine.ContainerRemove(ctx, id, client.ContainerRemoveOptions{Force: true}); err != nil {
			b.Fatal(err)
		}
	}
	for n := range b.N {
		// One of each first, not counted: the engine's first start after
		// a pull is slower. Then each way first in turn, so that neither
		// always follows the other's removal.
		runDriver(n, 99)
		runBare()
		viaDriver, bare = viaDriver[:len(viaDriver)-1], bare[:len(bare)-1]
		for i := range startRuns {
			if i%2 == 0 {
				runDriver(n, i)
				runBare()
			} else {
				runBare()
				runDriver(n, i)
			}
		}
	}
	overhead := median(viaDriver) - median(bare)
	b.ReportMetric(ms(median(viaDriver)), "driver_start_median_ms")
	b.ReportMetric(ms(median(bare)), "bare_start_median_ms")
	b.ReportMetric(ms(overhead), "start_overhead_ms")
	b.Logf("start from a present image over %d runs each: driver median %s (max %s), bare create+start median %s (max %s); overhead %s (target ≤ %s)",
		len(bare), median(viaDriver), slices.Max(viaDriver), median(bare), slices.Max(bare), overhead, targetDockerStartOverheadMedian)
}

func benchTaskConfig(b *testing.B, image string, n, i int) *drivers.TaskConfig {
	root := b.TempDir()
	allocID := structs.GenerateUUID()
	cfg := &drivers.TaskConfig{
		ID: allocID + "/t/" + fmt.Sprintf("%02d%02d", n, i), AllocID: allocID, Name: "t", Driver: docker.DriverName,
		Config: map[string]any{
			"image": image, "args": []any{"sleep", "1000s"},
			"labels": map[string]any{dockertest.TestLabel: "1"},
		},
		Env:        map[string]string{"NOMAD_ALLOC_DIR": filepath.Join(root, "alloc")},
		AllocDir:   filepath.Join(root, "alloc"),
		TaskDir:    filepath.Join(root, "t"),
		StdoutPath: filepath.Join(root, "alloc", "logs", "t.stdout"),
		StderrPath: filepath.Join(root, "alloc", "logs", "t.stderr"),
		Resources:  &structs.Resources{CPU: 20, MemoryMB: 32},
	}
	for _, dir := range []string{filepath.Dir(cfg.StdoutPath), filepath.Join(cfg.TaskDir, "local"), filepath.Join(cfg.TaskDir, "secrets")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	return cfg
}

// bareRun is `docker run -d image sleep 1000s` through the engine API.
func bareRun(b *testing.B, engine *client.Client, image string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	created, err := engine.ContainerCreate(ctx, client.ContainerCreateOptions{Config: &container.Config{Image: image, Cmd: []string{"sleep", "1000s"}, Labels: map[string]string{dockertest.TestLabel: "1"}}})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := engine.ContainerStart(ctx, created.ID, client.ContainerStartOptions{}); err != nil {
		b.Fatal(err)
	}
	return created.ID
}

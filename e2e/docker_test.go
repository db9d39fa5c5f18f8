package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/moby/moby/client"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/internal/dockertest"
	"github.com/drover-io/drover/internal/waitfor"
)

// The docker tests run the real binary against the local Docker engine,
// with images from an in-process registry on 127.0.0.1 (see dockertest).
// In CI a missing engine fails them; elsewhere it skips them.

// TestDocker_DesignJob runs examples/maxrun-docker.hcl, the design's job
// with both groups, through the CLI. Its docker group's image is served
// slowly, so its 2 s budget runs out during the pull: the pull is
// abandoned (the registry sees the download cut off before the layer is
// sent), the task never starts, and the allocation ends complete with the
// reason, as the raw_exec group's does at its 10 s deadline.
func TestDocker_DesignJob(t *testing.T) {
	t.Parallel()
	skipShort(t)
	engine := dockertest.Engine(t)
	reg := dockertest.NewRegistry(t)
	img := dockertest.PushImage(t, reg, dockertest.ImageOptions{Name: "prom/prometheus", Tag: "latest", FillerBytes: 4 << 20})
	slow := reg.Throttle(img.FillerDigest, 64<<10)
	a := startDevAgent(t)

	out := a.mustCLI("job run", "-detach", "-var", "image="+img.Ref, examplePath(t, "maxrun-docker.hcl"))
	must.StrContains(t, out, "Evaluation ID")

	allocs := a.waitAllocs("maxrun-docker", 2, "terminal", 45*time.Second, terminal)
	byGroup := map[string]*api.Allocation{}
	for _, alloc := range allocs {
		byGroup[alloc.TaskGroup] = alloc
	}

	docker := byGroup["huge_docker_image"]
	must.NotNil(t, docker)
	mustEndByDeadline(t, docker)
	deadline := deadlineOf(t, docker, 2*time.Second)
	ts := task(t, docker, "prometheus")
	must.Eq(t, api.TaskStateDead, ts.State)
	must.True(t, ts.StartedAt.IsZero(), must.Sprintf("task started at %s", ts.StartedAt))
	must.Nil(t, event(ts, "Started"), must.Sprintf("events: %v", events(ts)))
	pulling := event(ts, "Driver")
	must.NotNil(t, pulling, must.Sprintf("no Downloading image event: %v", events(ts)))
	must.Eq(t, "Downloading image "+img.Ref, pulling.DisplayMessage)
	must.NotNil(t, event(ts, "Killing"), must.Sprintf("events: %v", events(ts)))
	must.Eq(t, exceededDescription, event(ts, "Killing").DisplayMessage)

	// The engine dropped the download at the deadline, before the layer
	// was sent, and left no container.
	select {
	case <-slow.Closed():
	case <-time.After(10 * time.Second):
		t.Fatal("the registry never saw the image download cut off")
	}
	late := slow.ClosedAt().Sub(deadline)
	must.True(t, late >= 0 && late <= 2*killWithin, must.Sprintf(
		"pull abandoned %s after the deadline; want within [0, %s]", late, 2*killWithin))
	sent, size, complete := slow.Progress()
	must.False(t, complete, must.Sprintf("the layer was sent in full (%d bytes)", size))
	must.Less(t, size, sent)
	must.SliceEmpty(t, allocContainers(t, engine, docker.ID))

	raw := byGroup["maxrun"]
	must.NotNil(t, raw)
	mustEndByDeadline(t, raw)
	mustBeKilledByDeadline(t, raw, "maxrun")
	mustFinishWithin(t, task(t, raw, "maxrun"), deadlineOf(t, raw, 10*time.Second), killWithin)
	must.Eq(t, 0, event(task(t, raw, "maxrun2"), "Terminated").ExitCode)

	a.waitJobStatus("maxrun-docker", "dead", 10*time.Second)
	status := a.mustCLI("alloc status", docker.ID)
	must.RegexMatch(t, regexp.MustCompile(`Client Description\s+= allocation exceeded max_run_duration`), status)
	must.StrContains(t, status, "Downloading image "+img.Ref)
}

// TestDocker_MaxRunWhileRunning kills running containers at the
// deadline with the task's kill_signal, and SIGKILLs the one that
// ignores it after kill_timeout; `alloc logs` shows what each printed.
// The budget leaves both containers time to start, and the test time to
// read their stats, on a loaded machine.
func TestDocker_MaxRunWhileRunning(t *testing.T) {
	t.Parallel()
	skipShort(t)
	engine := dockertest.Engine(t)
	reg := dockertest.NewRegistry(t)
	img := dockertest.PushImage(t, reg, dockertest.ImageOptions{})
	a := startDevAgent(t)

	a.runJob(fmt.Sprintf(`job "docker-maxrun" {
  type = "batch"
  group "g" {
    max_run_duration = "10s"
    task "polite" {
      driver       = "docker"
      kill_signal  = "SIGTERM"
      kill_timeout = "10s"
      config {
        image = %[1]q
        args  = ["trap", "SIGTERM", "0", "print", "started", "sleep", "1000s"]
      }
    }
    task "stubborn" {
      driver       = "docker"
      kill_signal  = "SIGTERM"
      kill_timeout = "2s"
      config {
        image = %[1]q
        args  = ["ignore", "SIGTERM", "print", "started", "sleep", "1000s"]
      }
    }
  }
}`, img.Ref))
	running := a.waitRunning("docker-maxrun")
	must.SliceLen(t, 2, allocContainers(t, engine, running.ID))

	// The stats endpoint reads the containers' cgroups from the engine,
	// once each task runs (the allocation runs with its first).
	a.waitFor("both containers' stats", 20*time.Second, func() error {
		var stats struct {
			Tasks map[string]struct {
				ResourceUsage struct {
					MemoryStats struct {
						RSS      uint64
						Measured []string
					}
				}
			}
		}
		resp, err := http.Get(a.Addr + "/v1/client/allocation/" + running.ID + "/stats")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(&stats); err != nil {
			return err
		}
		for _, name := range []string{"polite", "stubborn"} {
			mem := stats.Tasks[name].ResourceUsage.MemoryStats
			if !slices.Contains(mem.Measured, "Cache") || mem.RSS == 0 {
				return fmt.Errorf("%w: %s: memory stats %+v", errNotYet, name, mem)
			}
		}
		return nil
	})

	done := a.waitAllocs("docker-maxrun", 1, "terminal", 45*time.Second, terminal)[0]
	mustEndByDeadline(t, done)
	deadline := deadlineOf(t, done, 10*time.Second)
	mustBeKilledByDeadline(t, done, "polite")
	mustBeKilledByDeadline(t, done, "stubborn")
	// The polite one goes on its signal; the stubborn one runs out its
	// kill_timeout, outside the budget, and is killed.
	mustFinishWithin(t, task(t, done, "polite"), deadline, killWithin)
	mustFinishWithin(t, task(t, done, "stubborn"), deadline.Add(2*time.Second), killWithin)
	must.Eq(t, 0, event(task(t, done, "polite"), "Terminated").ExitCode)
	must.Eq(t, 137, event(task(t, done, "stubborn"), "Terminated").ExitCode)

	must.Eq(t, "started\ntrapped SIGTERM\n", a.mustCLI("alloc logs", done.ID, "polite"))
	must.Eq(t, "started\nignored SIGTERM\n", a.mustCLI("alloc logs", done.ID, "stubborn"))
	a.waitJobStatus("docker-maxrun", "dead", 10*time.Second)
}

// TestDocker_AgentRestart SIGKILLs an agent while its containers run and
// starts it again on the same data dir: the running container is the
// same one and is killed at its original deadline; a container that
// exited while the agent was down reports its exit code; output written
// meanwhile reaches the logs once.
func TestDocker_AgentRestart(t *testing.T) {
	t.Parallel()
	skipShort(t)
	// Long enough for both containers to start, one to exit while the
	// agent is down and the agent to come back, on a loaded machine.
	const budget = 20 * time.Second
	engine := dockertest.Engine(t)
	reg := dockertest.NewRegistry(t)
	img := dockertest.PushImage(t, reg, dockertest.ImageOptions{})
	dir := t.TempDir()
	first := startDataDirAgent(t, dir, 0, 0)
	first.runJob(fmt.Sprintf(`job "lives-on" {
  type = "batch"
  group "g" {
    max_run_duration = "20s"
    task "t" {
      driver = "docker"
      config {
        image = %q
        args  = ["print", "before", "sleep", "5s", "print", "while away", "sleep", "1000s"]
      }
    }
  }
}`, img.Ref))
	first.runJob(fmt.Sprintf(`job "exits" {
  type = "batch"
  group "g" {
    restart {
      attempts = 0
      mode     = "fail"
    }
    task "t" {
      driver = "docker"
      config {
        image = %q
        args  = ["print", "before", "sleep", "5s", "print", "last words", "exit", "3"]
      }
    }
  }
}`, img.Ref))
	running := first.waitRunning("lives-on")
	exits := first.waitRunning("exits")
	deadline := deadlineOf(t, running, budget)
	containers := allocContainers(t, engine, running.ID)
	must.SliceLen(t, 1, containers)
	first.waitFor("output before the kill", 10*time.Second, func() error {
		if out := first.mustCLI("alloc logs", running.ID, "t"); out != "before\n" {
			return fmt.Errorf("%w: stdout %q", errNotYet, out)
		}
		return nil
	})

	first.Kill()
	// Both containers write while the agent is away; one exits.
	waitfor.NoError(t, "the container to exit while the agent is down", func() error {
		ids := allocContainers(t, engine, exits.ID)
		if len(ids) != 1 || containerRunning(t, engine, ids[0]) {
			return fmt.Errorf("%w: still running", errNotYet)
		}
		return nil
	})
	second := startDataDirAgent(t, dir, first.HTTPPort, first.RPCPort)
	must.Eq(t, containers, allocContainers(t, engine, running.ID), must.Sprint("the same container, not a new one"))
	must.True(t, containerRunning(t, engine, containers[0]))

	failed := second.waitAlloc(exits.ID, "failed", 30*time.Second, clientStatus(api.AllocClientStatusFailed))
	ts := task(t, failed, "t")
	must.Eq(t, 3, event(ts, "Terminated").ExitCode)
	must.Eq(t, "before\nlast words\n", second.mustCLI("alloc logs", exits.ID, "t"))

	done := second.waitAlloc(running.ID, "terminal", budget+30*time.Second, terminal)
	mustEndByDeadline(t, done)
	mustBeKilledByDeadline(t, done, "t")
	off := task(t, done, "t").FinishedAt.Sub(deadline)
	must.True(t, off >= -restartTolerance && off <= restartTolerance, must.Sprintf(
		"task finished %s from the original deadline %s; want within ±%s", off, deadline, restartTolerance))
	started := 0
	for _, ev := range task(t, done, "t").Events {
		if ev.Type == "Started" {
			started++
		}
	}
	must.Eq(t, 1, started, must.Sprintf("re-attached, not started again: %v", events(task(t, done, "t"))))
	must.Eq(t, "before\nwhile away\n", second.mustCLI("alloc logs", running.ID, "t"))
}

// allocContainers lists the IDs of the allocation's containers, by the
// label the driver puts on them.
func allocContainers(t *testing.T, engine *client.Client, allocID string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := engine.ContainerList(ctx, client.ContainerListOptions{
		All:     true,
		Filters: make(client.Filters).Add("label", "com.hashicorp.nomad.alloc_id="+allocID),
	})
	must.NoError(t, err)
	var ids []string
	for _, c := range list.Items {
		ids = append(ids, c.ID)
	}
	return ids
}

func containerRunning(t *testing.T, engine *client.Client, id string) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	insp, err := engine.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
	must.NoError(t, err)
	return insp.Container.State.Running
}

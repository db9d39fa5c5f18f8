package agent

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/internal/waitfor"
)

// healthTestEnv makes the test binary a task that serves HTTP on the
// address it names: /health answers 200 while the file "healthy" is in
// its directory, 503 otherwise.
const healthTestEnv = "DROVER_AGENT_TEST_HEALTH"

func healthMain(addr string) int {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	err = http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := os.Stat("healthy"); err != nil || r.URL.Path != "/health" {
			http.Error(w, "not healthy", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, "healthy")
	}))
	fmt.Fprintln(os.Stderr, err)
	return 1
}

// TestServiceChecks_RunByTheClient: a task serving on its port has an
// http check that fails until the task's directory holds the file
// "healthy" and then passes, a script check (run in the task through
// raw_exec) that warns, then passes, on the same file, and a tcp check
// that passes; the stock client's Allocations().Checks shows each as
// Nomad does. A second job's task, whose port nobody serves, is
// restarted by its check's check_restart, with the event Nomad emits.
func TestServiceChecks_RunByTheClient(t *testing.T) {
	a := testClientAgent(t)
	client, err := nomadapi.NewClient(&nomadapi.Config{Address: "http://" + a.HTTPAddr()})
	must.NoError(t, err)
	exe, err := os.Executable()
	must.NoError(t, err)

	job := nomadapi.NewServiceJob("web", "web", "global", 50)
	job.Datacenters = []string{"dc1"}
	task := nomadapi.NewTask("server", "raw_exec").SetConfig("command", exe)
	task.Env = map[string]string{healthTestEnv: "${NOMAD_ADDR_http}"}
	task.Services = []*nomadapi.Service{{Name: "web", Provider: "nomad", PortLabel: "http", Checks: []nomadapi.ServiceCheck{
		{Name: "health", Type: "http", Path: "/health", Interval: time.Second, Timeout: time.Second},
		{Name: "port", Type: "tcp", Interval: time.Second, Timeout: time.Second},
		{Name: "file", Type: "script", Command: "/bin/sh", Args: []string{"-c", "test -f healthy"}, Interval: time.Second, Timeout: 5 * time.Second},
	}}}
	group := nomadapi.NewTaskGroup("g", 1).AddTask(task)
	group.Networks = []*nomadapi.NetworkResource{{DynamicPorts: []nomadapi.Port{{Label: "http"}}}}
	job.AddTaskGroup(group)
	_, _, err = client.Jobs().Register(job, nil)
	must.NoError(t, err)
	stubs := waitJobAllocs(t, a, "web", "an allocation", func(s []*api.AllocationListStub) bool { return len(s) == 1 })
	allocID := stubs[0].ID
	t.Cleanup(func() { stopAndWait(t, a, "", allocID) })

	statuses := func(want map[string]string) func() bool {
		return func() bool {
			got, err := client.Allocations().Checks(allocID, nil)
			must.NoError(t, err)
			if len(got) != len(want) {
				return false
			}
			for _, st := range got {
				if want[st.Check] != st.Status {
					return false
				}
			}
			return true
		}
	}
	waitfor.True(t, "the http check failing, the script warning, the tcp check passing",
		statuses(map[string]string{"health": "failure", "file": "warning", "port": "success"}),
		wait.Timeout(60*time.Second), wait.Gap(100*time.Millisecond))
	got, err := client.Allocations().Checks(allocID, nil)
	must.NoError(t, err)
	for _, st := range got {
		must.Eq(t, "web", st.Service)
		must.Eq(t, "server", st.Task)
		must.Eq(t, "web.g[0]", st.Group)
		must.Eq(t, "healthiness", st.Mode)
		must.Eq(t, 32, len(st.ID))
		must.Positive(t, st.Timestamp)
		if st.Check == "health" {
			must.Eq(t, http.StatusServiceUnavailable, st.StatusCode)
			must.StrContains(t, st.Output, "not healthy")
		}
	}

	ar, err := a.Client().AllocRunner(allocID)
	must.NoError(t, err)
	td, err := ar.AllocDir().TaskDir("server")
	must.NoError(t, err)
	must.NoError(t, os.WriteFile(filepath.Join(td.Dir, "healthy"), nil, 0o644))
	waitfor.True(t, "every check passing once the task is healthy",
		statuses(map[string]string{"health": "success", "file": "success", "port": "success"}),
		wait.Timeout(60*time.Second), wait.Gap(100*time.Millisecond))

	must.NoError(t, os.Remove(filepath.Join(td.Dir, "healthy")))
	waitfor.True(t, "the http check failing again",
		statuses(map[string]string{"health": "failure", "file": "warning", "port": "success"}),
		wait.Timeout(60*time.Second), wait.Gap(100*time.Millisecond))
}

// TestServiceChecks_CheckRestart: a task whose tcp check fails (nothing
// listens on its port) is restarted at the check's check_restart limit,
// with a Restart Signaled event naming the check, and the restart counts
// against the restart policy: with its one attempt used, the next
// restart fails the task.
func TestServiceChecks_CheckRestart(t *testing.T) {
	a := testClientAgent(t)
	client, err := nomadapi.NewClient(&nomadapi.Config{Address: "http://" + a.HTTPAddr()})
	must.NoError(t, err)

	job := nomadapi.NewServiceJob("deaf", "deaf", "global", 50)
	job.Datacenters = []string{"dc1"}
	task := nomadapi.NewTask("sleeper", "raw_exec").SetConfig("command", "/bin/sleep").SetConfig("args", []string{"1000"})
	grace := time.Second
	task.Services = []*nomadapi.Service{{Name: "deaf", Provider: "nomad", PortLabel: "http",
		CheckRestart: &nomadapi.CheckRestart{Limit: 2, Grace: &grace},
		Checks:       []nomadapi.ServiceCheck{{Name: "alive", Type: "tcp", Interval: time.Second, Timeout: time.Second}},
	}}
	attempts, delay, interval, mode := 1, time.Second, time.Hour, "fail"
	task.RestartPolicy = &nomadapi.RestartPolicy{Attempts: &attempts, Delay: &delay, Interval: &interval, Mode: &mode}
	group := nomadapi.NewTaskGroup("g", 1).AddTask(task)
	group.Networks = []*nomadapi.NetworkResource{{DynamicPorts: []nomadapi.Port{{Label: "http"}}}}
	reschedule := 0
	group.ReschedulePolicy = &nomadapi.ReschedulePolicy{Attempts: &reschedule, Unlimited: new(bool)}
	job.AddTaskGroup(group)
	_, _, err = client.Jobs().Register(job, nil)
	must.NoError(t, err)
	stubs := waitJobAllocs(t, a, "deaf", "an allocation", func(s []*api.AllocationListStub) bool { return len(s) == 1 })
	allocID := stubs[0].ID

	var ts *nomadapi.TaskState
	waitfor.True(t, "the task failed after its checks restarted it", func() bool {
		alloc, _, err := client.Allocations().Info(allocID, nil)
		must.NoError(t, err)
		ts = alloc.TaskStates["sleeper"]
		return ts != nil && ts.State == "dead"
	}, wait.Timeout(90*time.Second), wait.Gap(200*time.Millisecond))
	must.True(t, ts.Failed)
	must.Eq(t, uint64(1), ts.Restarts)
	signaled := 0
	for _, ev := range ts.Events {
		if ev.Type == "Restart Signaled" {
			signaled++
			must.Eq(t, `healthcheck: check "alive" unhealthy`, ev.DisplayMessage)
		}
	}
	must.Eq(t, 2, signaled)
	must.Eq(t, "Not Restarting", ts.Events[len(ts.Events)-1].Type)
}

package agent

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/internal/waitfor"
)

// listenTestEnv makes the test binary a task that serves HTTP on the
// address it names and answers with its port variables and arguments.
const listenTestEnv = "DROVER_AGENT_TEST_LISTEN"

func listenMain(addr string) int {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	reply := fmt.Sprintf("port=%s host_port=%s addr=%s args=%s",
		os.Getenv("NOMAD_PORT_http"), os.Getenv("NOMAD_HOST_PORT_http"), os.Getenv("NOMAD_ADDR_http"), strings.Join(os.Args[1:], " "))
	err = http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, reply)
	}))
	fmt.Fprintln(os.Stderr, err)
	return 1
}

// listenJob is a service job of one raw_exec task that listens on the
// group's port "http", as its environment and config give it.
func listenJob(id string, network *nomadapi.NetworkResource) *nomadapi.Job {
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	job := nomadapi.NewServiceJob(id, id, "global", 50)
	job.Datacenters = []string{"dc1"}
	task := nomadapi.NewTask("web", "raw_exec").
		SetConfig("command", exe).
		SetConfig("args", []string{"${NOMAD_PORT_http}", "${NOMAD_HOST_ADDR_http}"})
	task.Env = map[string]string{listenTestEnv: "${NOMAD_ADDR_http}"}
	group := nomadapi.NewTaskGroup("g", 1).AddTask(task)
	group.Networks = []*nomadapi.NetworkResource{network}
	return job.AddTaskGroup(group)
}

// TestNetwork_HostPortsReachTheTask: a raw_exec task of a group with a
// dynamic and a static port gets both in its environment and config,
// listens on the one the scheduler picked (on loopback, the dev agent's
// address), and the allocation shows them as Nomad does. A second
// allocation asking for the same static port is not placed on the node,
// and says why.
func TestNetwork_HostPortsReachTheTask(t *testing.T) {
	a := testClientAgent(t)
	client, err := nomadapi.NewClient(&nomadapi.Config{Address: "http://" + a.HTTPAddr()})
	must.NoError(t, err)

	static := freePort(t)
	start := time.Now()
	_, _, err = client.Jobs().Register(listenJob("web", &nomadapi.NetworkResource{
		DynamicPorts:  []nomadapi.Port{{Label: "http"}},
		ReservedPorts: []nomadapi.Port{{Label: "admin", Value: static}},
	}), nil)
	must.NoError(t, err)
	stubs := waitJobAllocs(t, a, "web", "an allocation", func(s []*api.AllocationListStub) bool { return len(s) == 1 })
	alloc, _, err := client.Allocations().Info(stubs[0].ID, nil)
	must.NoError(t, err)
	shared := alloc.AllocatedResources.Shared
	must.SliceLen(t, 2, shared.Ports)
	ports := map[string]nomadapi.PortMapping{}
	for _, p := range shared.Ports {
		ports[p.Label] = p
	}
	must.Eq(t, nomadapi.PortMapping{Label: "admin", Value: static, To: static, HostIP: "127.0.0.1"}, ports["admin"])
	http := ports["http"]
	must.Between(t, 20000, http.Value, 32000)
	must.Eq(t, "127.0.0.1", http.HostIP)
	must.SliceLen(t, 1, shared.Networks)
	must.Eq(t, "host", shared.Networks[0].Mode)
	must.Eq(t, "127.0.0.1", shared.Networks[0].IP)

	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(http.Value))
	var body string
	waitfor.True(t, "the task answers on "+addr, func() bool {
		resp, err := agentHTTPClient(a).Get("http://" + addr)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		body = string(b)
		return true
	}, wait.Timeout(30*time.Second), wait.Gap(20*time.Millisecond))
	t.Logf("host networking: job registered to task answering on its dynamic port in %s", time.Since(start))
	port := strconv.Itoa(http.Value)
	must.Eq(t, fmt.Sprintf("port=%s host_port=%s addr=%s args=%s %s", port, port, addr, port, addr), body)

	// The same static port again: the one node has it taken.
	resp, _, err := client.Jobs().Register(listenJob("web2", &nomadapi.NetworkResource{
		ReservedPorts: []nomadapi.Port{{Label: "http", Value: static}},
	}), nil)
	must.NoError(t, err)
	var eval api.Evaluation
	waitfor.True(t, "the second job's placement fails", func() bool {
		get(t, a, "/v1/evaluation/"+resp.EvalID, &eval)
		return eval.Status == "complete"
	}, wait.Timeout(30*time.Second), wait.Gap(20*time.Millisecond))
	metric := eval.FailedTGAllocs["g"]
	must.NotNil(t, metric)
	must.Eq(t, map[string]int{fmt.Sprintf("network: reserved port collision http=%d", static): 1}, metric.DimensionExhausted)
	waitJobAllocs(t, a, "web2", "no allocation", func(s []*api.AllocationListStub) bool { return len(s) == 0 })
}

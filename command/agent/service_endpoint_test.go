package agent

import (
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/internal/waitfor"
)

// TestServices_RegisteredWhileTheTaskRuns: a raw_exec task listening on
// its group's dynamic port (on loopback) has its group's and its own
// service registered, with the port the scheduler picked, as Nomad's
// client reads them; they go when the job stops.
func TestServices_RegisteredWhileTheTaskRuns(t *testing.T) {
	a := testClientAgent(t)
	client, err := nomadapi.NewClient(&nomadapi.Config{Address: "http://" + a.HTTPAddr()})
	must.NoError(t, err)

	job := listenJob("svc", &nomadapi.NetworkResource{DynamicPorts: []nomadapi.Port{{Label: "http"}}})
	group := job.TaskGroups[0]
	group.Services = []*nomadapi.Service{{Name: "${NOMAD_JOB_NAME}-web", PortLabel: "http", Provider: "nomad", Tags: []string{"group"}}}
	group.Tasks[0].Services = []*nomadapi.Service{{Name: "svc-task", PortLabel: "http", Provider: "nomad", Tags: []string{"task", "v1"}}}
	_, _, err = client.Jobs().Register(job, nil)
	must.NoError(t, err)

	var regs []*nomadapi.ServiceRegistration
	waitfor.True(t, "the group's service registered", func() bool {
		regs, _, err = client.Services().Get("svc-web", nil)
		must.NoError(t, err)
		return len(regs) == 1
	}, wait.Timeout(30*time.Second), wait.Gap(20*time.Millisecond))
	reg := regs[0]
	must.Eq(t, "127.0.0.1", reg.Address)
	must.Between(t, 20000, reg.Port, 32000)
	must.Eq(t, "svc", reg.JobID)
	must.Eq(t, "default", reg.Namespace)
	must.Eq(t, "dc1", reg.Datacenter)
	must.Eq(t, []string{"group"}, reg.Tags)
	alloc, _, err := client.Allocations().Info(reg.AllocID, nil)
	must.NoError(t, err)
	must.Eq(t, alloc.NodeID, reg.NodeID)
	must.Eq(t, alloc.AllocatedResources.Shared.Ports[0].Value, reg.Port)

	// What the registration says is where the task answers.
	addr := net.JoinHostPort(reg.Address, strconv.Itoa(reg.Port))
	waitfor.True(t, "the task answers on "+addr, func() bool {
		resp, err := agentHTTPClient(a).Get("http://" + addr)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode == http.StatusOK
	}, wait.Timeout(30*time.Second), wait.Gap(20*time.Millisecond))

	waitfor.True(t, "the task's service listed", func() bool {
		list, _, err := client.Services().List(nil)
		must.NoError(t, err)
		return len(list) == 1 && len(list[0].Services) == 2
	}, wait.Timeout(10*time.Second), wait.Gap(20*time.Millisecond))
	list, _, err := client.Services().List(nil)
	must.NoError(t, err)
	must.Eq(t, "default", list[0].Namespace)
	must.Eq(t, "svc-task", list[0].Services[0].ServiceName)
	must.Eq(t, []string{"task", "v1"}, list[0].Services[0].Tags)

	_, _, err = client.Jobs().Deregister("svc", false, nil)
	must.NoError(t, err)
	waitfor.True(t, "the services removed", func() bool {
		list, _, err := client.Services().List(nil)
		must.NoError(t, err)
		return len(list) == 0
	}, wait.Timeout(30*time.Second), wait.Gap(20*time.Millisecond))
}

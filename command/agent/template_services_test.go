package agent

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/internal/waitfor"
)

// TestTemplate_nomadServiceLive: a task's template lists another job's
// service, on the dynamic port the scheduler picked, read with the task's
// workload identity; when that job stops the template renders again,
// without it.
func TestTemplate_nomadServiceLive(t *testing.T) {
	a := testClientAgent(t)
	waitForKeyring(t, a, "")
	client, err := nomadapi.NewClient(&nomadapi.Config{Address: "http://" + a.HTTPAddr()})
	must.NoError(t, err)

	backend := listenJob("backend", &nomadapi.NetworkResource{DynamicPorts: []nomadapi.Port{{Label: "http"}}})
	backend.TaskGroups[0].Services = []*nomadapi.Service{{Name: "backend-web", PortLabel: "http", Provider: "nomad", Tags: []string{"v1"}}}
	_, _, err = client.Jobs().Register(backend, nil)
	must.NoError(t, err)
	var regs []*nomadapi.ServiceRegistration
	waitfor.True(t, "the backend's service registered", func() bool {
		regs, _, err = client.Services().Get("backend-web", nil)
		must.NoError(t, err)
		return len(regs) == 1
	}, wait.Timeout(30*time.Second), wait.Gap(20*time.Millisecond))

	reader := nomadapi.NewServiceJob("reader", "reader", "global", 50)
	reader.Datacenters = []string{"dc1"}
	task := nomadapi.NewTask("lister", "raw_exec").
		SetConfig("command", "/bin/sh").
		SetConfig("args", []string{"-c", "while true; do sleep 0.1; done"})
	tmpl, dest, noop := `{{ range nomadService "v1.backend-web" }}{{ .Address }}:{{ .Port }} {{ .JobID }}{{ end }}|{{ range nomadServices }}{{ .Name }}{{ .Tags }}{{ end }}`, "local/svc.txt", "noop"
	task.Templates = []*nomadapi.Template{{EmbeddedTmpl: &tmpl, DestPath: &dest, ChangeMode: &noop}}
	reader.AddTaskGroup(nomadapi.NewTaskGroup("g", 1).AddTask(task))
	_, _, err = client.Jobs().Register(reader, nil)
	must.NoError(t, err)

	want := regs[0].Address + ":" + strconv.Itoa(regs[0].Port) + " backend|backend-web[v1]"
	var file, allocID string
	waitfor.True(t, "the rendered service list", func() bool {
		stubs, _, err := client.Jobs().Allocations("reader", false, nil)
		if err != nil || len(stubs) != 1 {
			return false
		}
		allocID = stubs[0].ID
		ar, err := a.Client().AllocRunner(allocID)
		if err != nil {
			return false
		}
		td, err := ar.AllocDir().TaskDir("lister")
		if err != nil {
			return false
		}
		file = filepath.Join(td.LocalDir, "svc.txt")
		b, err := os.ReadFile(file)
		return err == nil && string(b) == want
	}, wait.Timeout(60*time.Second), wait.Gap(50*time.Millisecond))
	t.Cleanup(func() { stopAndWait(t, a, "", allocID) })

	_, _, err = client.Jobs().Deregister("backend", false, nil)
	must.NoError(t, err)
	waitfor.True(t, "the template rendered without the service", func() bool {
		b, err := os.ReadFile(file)
		return err == nil && string(b) == "|"
	}, wait.Timeout(60*time.Second), wait.Gap(50*time.Millisecond))
}

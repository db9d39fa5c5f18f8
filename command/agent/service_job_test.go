package agent

import (
	"testing"
	"time"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"
)

// TestServiceBlock_OverTheAPI: a job with services and checks (one with
// check_restart), as Nomad's client canonicalises it, is accepted without
// a warning and reads back as written; a Connect sidecar and a port label
// the network lacks are refused.
func TestServiceBlock_OverTheAPI(t *testing.T) {
	a := testAgent(t)
	client, err := nomadapi.NewClient(&nomadapi.Config{Address: "http://" + a.HTTPAddr()})
	must.NoError(t, err)

	job := func(id string, svc *nomadapi.Service) *nomadapi.Job {
		j := nomadapi.NewServiceJob(id, id, "global", 50)
		j.Datacenters = []string{"dc1"}
		g := nomadapi.NewTaskGroup("g", 1).AddTask(nomadapi.NewTask("t", "raw_exec").SetConfig("command", "/bin/sleep").SetConfig("args", []string{"1000"}))
		g.Networks = []*nomadapi.NetworkResource{{DynamicPorts: []nomadapi.Port{{Label: "http"}}}}
		g.Services = []*nomadapi.Service{svc}
		j.AddTaskGroup(g)
		j.Canonicalize()
		return j
	}

	grace := 30 * time.Second
	web := &nomadapi.Service{Name: "web", Provider: "nomad", PortLabel: "http", Tags: []string{"v1"}, TaskName: "t",
		CheckRestart: &nomadapi.CheckRestart{Limit: 3, Grace: &grace},
		Checks:       []nomadapi.ServiceCheck{{Type: "http", Path: "/health", Interval: 10 * time.Second, Timeout: 2 * time.Second}}}
	reg, _, err := client.Jobs().Register(job("web", web), nil)
	must.NoError(t, err)
	must.StrNotContains(t, reg.Warnings, "service checks")
	must.StrNotContains(t, reg.Warnings, "Checks[0]")
	info, _, err := client.Jobs().Info("web", nil)
	must.NoError(t, err)
	got := info.TaskGroups[0].Services[0]
	must.Eq(t, "web", got.Name)
	must.Eq(t, "http", got.PortLabel)
	must.Eq(t, []string{"v1"}, got.Tags)
	must.Eq(t, "/health", got.Checks[0].Path)
	must.Eq(t, 10*time.Second, got.Checks[0].Interval)
	must.Eq(t, 3, got.Checks[0].CheckRestart.Limit, must.Sprint("the service's check_restart is merged into its checks"))
	must.Eq(t, grace, *got.Checks[0].CheckRestart.Grace)

	sidecar := &nomadapi.Service{Name: "mesh", PortLabel: "http", Connect: &nomadapi.ConsulConnect{SidecarService: &nomadapi.ConsulSidecarService{}}}
	_, _, err = client.Jobs().Register(job("mesh", sidecar), nil)
	must.ErrorContains(t, err, `Job field "TaskGroups[0].Services[0].Connect" is not supported by Drover`)

	_, _, err = client.Jobs().Register(job("noport", &nomadapi.Service{Name: "x", PortLabel: "grpc"}), nil)
	must.ErrorContains(t, err, `port "grpc" is not a port label of the group's network block`)
}

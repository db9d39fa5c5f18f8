package command

import (
	"context"
	"testing"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/structs"
)

// TestServiceCommands lists, shows and deletes a registration that a
// client of node n1 made for an allocation of job "shop" (written to the
// agent's server as a client's would be: this agent runs no client).
func TestServiceCommands(t *testing.T) {
	a, addr := testAgent(t)
	code, out, errOut := runCLI(t, "", "service", "list", "-address", addr)
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, "No service registrations found")
	code, _, errOut = runCLI(t, "", "service", "info", "-address", addr, "shop-web")
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, `No service registration found for "shop-web"`)

	client, err := nomadapi.NewClient(&nomadapi.Config{Address: addr})
	must.NoError(t, err)
	job := nomadapi.NewBatchJob("shop", "shop", "global", 50)
	job.Datacenters = []string{"dc1"}
	job.AddTaskGroup(nomadapi.NewTaskGroup("g", 1).AddTask(nomadapi.NewTask("t", "raw_exec").SetConfig("command", "/bin/true")))
	_, _, err = client.Jobs().Register(job, nil)
	must.NoError(t, err)
	ctx := context.Background()
	alloc := &structs.Allocation{ID: structs.GenerateUUID(), Namespace: "default", JobID: "shop", NodeID: "n1",
		Name: "shop.g[0]", TaskGroup: "g", ClientStatus: structs.AllocClientStatusRunning}
	_, err = a.Server().Apply(ctx, logentry.MsgAllocUpdate, &logentry.AllocUpdate{Allocs: []*structs.Allocation{alloc}})
	must.NoError(t, err)
	reg := &structs.ServiceRegistration{ID: "_nomad-task-" + alloc.ID + "-group-g-shop-web-http", ServiceName: "shop-web",
		Namespace: "default", NodeID: "n1", Datacenter: "dc1", JobID: "shop", AllocID: alloc.ID,
		Tags: []string{"v1"}, Address: "127.0.0.1", Port: 24180}
	_, err = a.Server().UpsertServiceRegistrations(ctx, &nomad.ServiceRegistrationUpsertRequest{
		Services: []*structs.ServiceRegistration{reg}, NodeID: "n1"})
	must.NoError(t, err)

	code, out, errOut = runCLI(t, "", "service", "list", "-address", addr)
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, "shop-web")
	must.StrContains(t, out, "v1")
	code, out, errOut = runCLI(t, "", "service", "info", "-address", addr, "shop-web")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, "127.0.0.1:24180")
	must.StrContains(t, out, reg.ID)

	code, _, errOut = runCLI(t, "", "service", "delete", "-address", addr, "shop-web", "no-such-id")
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "404")
	code, out, errOut = runCLI(t, "", "service", "delete", "-address", addr, "shop-web", reg.ID)
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, "Successfully deleted service registration")
	code, out, _ = runCLI(t, "", "service", "list", "-address", addr)
	must.Eq(t, 0, code)
	must.StrContains(t, out, "No service registrations found")
}

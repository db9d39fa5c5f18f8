package client

import (
	"context"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers/mock"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

// withServices gives a's group a dynamic port "http" on 127.0.0.1:23456
// (mapped to 8080 in the task), a group service and a task service.
func withServices(a *structs.Allocation) *structs.Allocation {
	a.Networks = []*structs.NetworkResource{{IP: "127.0.0.1", DynamicPorts: []structs.Port{{Label: "http", Value: 23456, To: 8080}}}}
	tg := a.Job.TaskGroups[0]
	tg.Services = []*structs.Service{{Name: "${NOMAD_JOB_NAME}-web", PortLabel: "http", Tags: []string{"g-${NOMAD_ALLOC_INDEX}"}}}
	tg.Tasks[0].Services = []*structs.Service{
		{Name: "${NOMAD_TASK_NAME}-api", PortLabel: "http", AddressMode: structs.AddressModeDriver},
		{Name: "fixed", PortLabel: "9000", Address: "10.0.0.1"},
	}
	return a
}

func TestWantedServices(t *testing.T) {
	node := &structs.Node{ID: "n1", Datacenter: "dc9"}
	a := withServices(mockAlloc("n1", nil))
	must.SliceEmpty(t, wantedServices(a, node), must.Sprint("registered before any task runs"))

	a.TaskStates = map[string]*structs.TaskState{"work": {State: structs.TaskStateRunning}}
	got := map[string]*structs.ServiceRegistration{}
	for _, r := range wantedServices(a, node) {
		got[r.ServiceName] = r
	}
	must.MapLen(t, 3, got)
	web := got["job-web"]
	must.NotNil(t, web)
	must.Eq(t, "127.0.0.1", web.Address)
	must.Eq(t, 23456, web.Port)
	must.Eq(t, []string{"g-0"}, web.Tags)
	must.Eq(t, "dc9", web.Datacenter)
	must.Eq(t, a.ID, web.AllocID)
	must.Eq(t, 8080, got["work-api"].Port, must.Sprint("address_mode driver registers the task's port"))
	must.Eq(t, "10.0.0.1", got["fixed"].Address)
	must.Eq(t, 9000, got["fixed"].Port)
	for _, r := range got {
		must.NoError(t, r.Validate())
	}

	a.TaskStates["work"].State = structs.TaskStateDead
	must.SliceEmpty(t, wantedServices(a, node))
	a.TaskStates["work"].State = structs.TaskStateRunning
	a.ClientStatus = structs.AllocClientStatusComplete
	must.SliceEmpty(t, wantedServices(a, node))
}

// The client registers a running allocation's services and removes them
// when its task ends.
func TestClient_RegistersServicesWhileTasksRun(t *testing.T) {
	srv := newFakeServer()
	c := testClient(t, srv, mock.New(nil))
	a := withServices(mockAlloc(c.NodeID(), map[string]any{"run_for": "1h"}))
	srv.place(a)
	waitfor.True(t, "three services registered", func() bool { return len(srv.registeredServices()) == 3 })
	for _, r := range srv.registeredServices() {
		must.Eq(t, c.NodeID(), r.NodeID)
	}
	srv.stop(a.ID)
	waitfor.True(t, "the services removed", func() bool { return len(srv.registeredServices()) == 0 })
}

// A registration an earlier agent made is removed when its task is found
// stopped, though this client never sent it.
func TestServiceSync_clearsWhatAnEarlierAgentRegistered(t *testing.T) {
	srv := newFakeServer()
	node := &structs.Node{ID: "n1", Datacenter: "dc1"}
	a := withServices(mockAlloc("n1", nil))
	a.TaskStates = map[string]*structs.TaskState{"work": {State: structs.TaskStateRunning}}
	must.NoError(t, srv.RegisterServices(t.Context(), NodeIdentity{}, wantedServices(a, node)))

	s := newServiceSync(hclog.NewNullLogger(), srv, func() NodeIdentity { return NodeIdentity{ID: "n1"} }, func() *structs.Node { return node })
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); s.run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	a.TaskStates["work"].State = structs.TaskStateDead
	s.AllocStateUpdated(a)
	waitfor.True(t, "the old registrations removed", func() bool { return len(srv.registeredServices()) == 0 })

	a.TaskStates["work"].State = structs.TaskStateRunning
	s.AllocStateUpdated(a)
	waitfor.True(t, "registered again", func() bool { return len(srv.registeredServices()) == 3 })
}

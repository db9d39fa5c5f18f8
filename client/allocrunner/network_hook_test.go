package allocrunner

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/cni"
	"github.com/drover-io/drover/structs"
)

// fakeNetworks records the calls of the network hook.
type fakeNetworks struct {
	mu        sync.Mutex
	setups    []cni.Request
	teardowns []string
	err       error
}

func (f *fakeNetworks) Setup(_ context.Context, req cni.Request) (*cni.Network, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.setups = append(f.setups, req)
	if f.err != nil {
		return nil, f.err
	}
	return &cni.Network{NetNSPath: "/run/test/" + req.AllocID, Status: structs.AllocNetworkStatus{InterfaceName: "eth0", Address: "172.26.64.9"}}, nil
}

func (f *fakeNetworks) Teardown(_ context.Context, allocID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.teardowns = append(f.teardowns, allocID)
	return nil
}

func bridgeAlloc() *structs.Allocation {
	alloc := testAlloc(mockTask("main", map[string]any{"run_for": "10ms"}))
	alloc.Job.TaskGroups[0].Networks = []*structs.NetworkResource{{Mode: structs.NetworkModeBridge}}
	alloc.Networks = []*structs.NetworkResource{{Mode: structs.NetworkModeBridge, IP: "127.0.0.1",
		DynamicPorts: []structs.Port{{Label: "http", Value: 23456, To: 8080}}}}
	return alloc
}

// A bridge-mode allocation gets its namespace before its tasks, reports
// its address, and has it torn down once they are dead. The mock driver
// cannot start a task in a namespace: the task fails, saying so, rather
// than run on the host's network.
func TestNetworkHook_SetupReportTeardown(t *testing.T) {
	nets := &fakeNetworks{}
	alloc := bridgeAlloc()
	h := newARHarness(t, alloc, func(c *Config) { c.Network = nets })
	runToEnd(h.ar)

	must.SliceLen(t, 1, nets.setups)
	req := nets.setups[0]
	must.Eq(t, alloc.ID, req.AllocID)
	must.Eq(t, structs.NetworkModeBridge, req.Mode)
	must.Eq(t, []structs.AllocatedPortMapping{{Label: "http", Value: 23456, To: 8080, HostIP: "127.0.0.1"}}, req.Ports)
	must.Eq(t, "example", req.Args["NOMAD_JOB_ID"])
	must.Eq(t, []string{alloc.ID}, nets.teardowns)

	last := h.handler.last()
	must.Eq(t, &structs.AllocNetworkStatus{InterfaceName: "eth0", Address: "172.26.64.9"}, last.NetworkStatus)
	must.Eq(t, structs.AllocClientStatusFailed, last.ClientStatus)
	must.StrContains(t, taskEvents(h), `cannot start a task in the group's network namespace`)
}

// taskEvents is what the main task's events say, one a line.
func taskEvents(h *arHarness) string {
	var msgs []string
	for _, ev := range h.taskState("main").Events {
		msgs = append(msgs, ev.DisplayMessage+" "+ev.SetupError+" "+ev.DriverError)
	}
	return strings.Join(msgs, "\n")
}

// A setup that fails fails the allocation before any task starts.
func TestNetworkHook_SetupFails(t *testing.T) {
	nets := &fakeNetworks{err: errors.New("no bridge plugin")}
	h := newARHarness(t, bridgeAlloc(), func(c *Config) { c.Network = nets })
	runToEnd(h.ar)
	last := h.handler.last()
	must.Eq(t, structs.AllocClientStatusFailed, last.ClientStatus)
	must.StrContains(t, taskEvents(h), "no bridge plugin")
	must.Nil(t, last.NetworkStatus)
}

// A client without a network manager fails such an allocation; a host
// mode one never calls it.
func TestNetworkHook_NoManagerAndHostMode(t *testing.T) {
	h := newARHarness(t, bridgeAlloc())
	runToEnd(h.ar)
	must.StrContains(t, taskEvents(h), "this client makes no network namespaces")

	nets := &fakeNetworks{}
	h = newARHarness(t, testAlloc(mockTask("main", map[string]any{"run_for": "10ms"})), func(c *Config) { c.Network = nets })
	runToEnd(h.ar)
	must.Eq(t, structs.AllocClientStatusComplete, h.handler.last().ClientStatus)
	must.SliceEmpty(t, nets.setups)
	must.SliceEmpty(t, nets.teardowns)
}

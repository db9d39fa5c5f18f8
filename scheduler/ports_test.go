package scheduler

import (
	"fmt"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// withHostNetwork gives mock nodes a loopback address and a dynamic port
// range of lo..hi with reserved ports.
func withHostNetwork(lo, hi int, reserved string) func(int, *structs.Node) {
	return func(i int, n *structs.Node) {
		n.NodeResources.Networks = []*structs.NetworkResource{{Mode: "host", Device: "lo", IP: fmt.Sprintf("127.0.0.%d", i+1)}}
		n.NodeResources.MinDynamicPort, n.NodeResources.MaxDynamicPort = lo, hi
		n.ReservedResources.Networks.ReservedHostPorts = reserved
	}
}

func portJob(count int, net *structs.NetworkResource) *structs.Job {
	job := mockJob(structs.JobTypeService, count)
	job.TaskGroups[0].Networks = []*structs.NetworkResource{net}
	return job
}

// TestPorts_StaticPortNeverShared: allocations asking for the same static
// port, of one job or of two, never share a node; the ones that find no
// node fail on the port's dimension.
func TestPorts_StaticPortNeverShared(t *testing.T) {
	h := newHarness(t)
	h.addNodes(3, withHostNetwork(0, 0, ""))
	static := &structs.NetworkResource{ReservedPorts: []structs.Port{{Label: "http", Value: 8080, To: 80}}}
	first := h.runJob(portJob(2, static))
	second := h.runJob(portJob(2, static))

	nodes := map[string]int{}
	for _, job := range []*structs.Job{first, second} {
		for _, a := range h.liveAllocs(job) {
			nodes[a.NodeID]++
			must.SliceLen(t, 1, a.Networks)
			must.Eq(t, []structs.Port{{Label: "http", Value: 8080, To: 80}}, a.Networks[0].ReservedPorts)
			must.Eq(t, "host", a.Networks[0].Mode)
			must.Eq(t, []structs.AllocatedPortMapping{{Label: "http", Value: 8080, To: 80, HostIP: a.Networks[0].IP}}, a.PortMappings())
		}
	}
	must.MapLen(t, 3, nodes)
	for id, n := range nodes {
		must.Eq(t, 1, n, must.Sprintf("node %s holds port 8080 %d times", id, n))
	}
	metric := h.lastUpdate().FailedTGAllocs["g"]
	must.NotNil(t, metric)
	must.Eq(t, map[string]int{"network: reserved port collision http=8080": 3}, metric.DimensionExhausted)
}

// TestPorts_FreedWhenTheAllocationEnds: a finished allocation's port goes
// to the next one.
func TestPorts_FreedWhenTheAllocationEnds(t *testing.T) {
	h := newHarness(t)
	h.addNodes(1, withHostNetwork(0, 0, ""))
	static := &structs.NetworkResource{ReservedPorts: []structs.Port{{Label: "http", Value: 8080}}}
	first := h.runJob(portJob(1, static))
	must.SliceLen(t, 1, h.liveAllocs(first))
	second := h.runJob(portJob(1, static))
	must.SliceLen(t, 0, h.liveAllocs(second))

	h.setClientStatus(structs.AllocClientStatusComplete, h.now, h.liveAllocs(first)...)
	h.process(mockEval(second, structs.EvalTriggerJobRegister))
	must.SliceLen(t, 1, h.liveAllocs(second))
}

// TestPorts_ReservedPortsAreNotGiven: the node's reserved ports are
// neither static nor dynamic ports of an allocation.
func TestPorts_ReservedPortsAreNotGiven(t *testing.T) {
	h := newHarness(t)
	h.addNodes(1, withHostNetwork(20000, 20002, "22,20001"))
	ssh := h.runJob(portJob(1, &structs.NetworkResource{ReservedPorts: []structs.Port{{Label: "ssh", Value: 22}}}))
	must.SliceLen(t, 0, h.liveAllocs(ssh))
	must.Eq(t, map[string]int{"network: reserved port collision ssh=22": 1}, h.lastUpdate().FailedTGAllocs["g"].DimensionExhausted)

	dyn := h.runJob(portJob(3, &structs.NetworkResource{DynamicPorts: []structs.Port{{Label: "http"}}}))
	live := h.liveAllocs(dyn)
	must.SliceLen(t, 2, live)
	got := map[int]bool{}
	for _, a := range live {
		got[a.Networks[0].DynamicPorts[0].Value] = true
	}
	must.Eq(t, map[int]bool{20000: true, 20002: true}, got)
	must.Eq(t, map[string]int{"network: dynamic port selection failed": 1}, h.lastUpdate().FailedTGAllocs["g"].DimensionExhausted)
}

// TestPorts_DynamicPortsInRangeAndDistinct: many dynamic ports over many
// allocations on one node are all in the node's range and all distinct.
func TestPorts_DynamicPortsInRangeAndDistinct(t *testing.T) {
	h := newHarness(t)
	h.addNodes(1, withHostNetwork(0, 0, ""))
	job := h.runJob(portJob(8, &structs.NetworkResource{
		ReservedPorts: []structs.Port{},
		DynamicPorts:  []structs.Port{{Label: "a"}, {Label: "b"}, {Label: "c", To: 9000}},
	}))
	live := h.liveAllocs(job)
	must.SliceLen(t, 8, live)
	seen := map[int]bool{}
	for _, a := range live {
		for _, p := range a.HostPorts() {
			must.Between(t, structs.DefaultMinDynamicPort, p.Value, structs.DefaultMaxDynamicPort)
			must.False(t, seen[p.Value], must.Sprintf("port %d given twice", p.Value))
			seen[p.Value] = true
		}
	}
	must.MapLen(t, 24, seen)
}

// TestPorts_NodeWithoutAddress: a node that reported no address gives no
// ports.
func TestPorts_NodeWithoutAddress(t *testing.T) {
	h := newHarness(t)
	h.addNodes(1, nil)
	job := h.runJob(portJob(1, &structs.NetworkResource{DynamicPorts: []structs.Port{{Label: "a"}}}))
	must.SliceLen(t, 0, h.liveAllocs(job))
	must.Eq(t, map[string]int{"network: no networks available": 1}, h.lastUpdate().FailedTGAllocs["g"].DimensionExhausted)
}

// TestPorts_ChangedNetworkReplacesTheAllocation: new ports cannot be
// given to a running allocation.
func TestPorts_ChangedNetworkReplacesTheAllocation(t *testing.T) {
	tg := portJob(1, &structs.NetworkResource{DynamicPorts: []structs.Port{{Label: "a"}}}).TaskGroups[0]
	must.False(t, needsNewAlloc(tg, tg.Copy()))
	next := tg.Copy()
	next.Networks[0].DynamicPorts = append(next.Networks[0].DynamicPorts, structs.Port{Label: "b"})
	must.True(t, needsNewAlloc(tg, next))
}

func TestPickDynamicPort(t *testing.T) {
	_, ok := pickDynamicPort(10, 9, func(int) bool { return false })
	must.False(t, ok)
	p, ok := pickDynamicPort(10, 1000, func(p int) bool { return p != 777 })
	must.True(t, ok)
	must.Eq(t, 777, p, must.Sprint("the walk finds the one free port"))
	_, ok = pickDynamicPort(10, 1000, func(int) bool { return true })
	must.False(t, ok)
}

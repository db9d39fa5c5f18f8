package state

import (
	"bytes"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// servicesFixture stores a job, a node and two running allocations of
// it on that node, and returns the allocations.
func servicesFixture(t *testing.T, s *StateStore) (a, b *structs.Allocation) {
	t.Helper()
	job := mustUpsertJob(t, s, 1, testJob("web"))
	must.NoError(t, s.UpsertNode(2, testNode("n1")))
	a, b = testAlloc(job, "e1", "n1"), testAlloc(job, "e1", "n1")
	must.NoError(t, s.UpsertAllocs(3, []*structs.Allocation{a, b}))
	return a, b
}

func testService(id string, alloc *structs.Allocation, name string, port int) *structs.ServiceRegistration {
	return &structs.ServiceRegistration{
		ID: id, ServiceName: name, Namespace: alloc.Namespace, NodeID: alloc.NodeID, Datacenter: "dc1",
		JobID: alloc.JobID, AllocID: alloc.ID, Tags: []string{"t"}, Address: "127.0.0.1", Port: port,
	}
}

func serviceIDs(t *testing.T, s *StateStore) []string {
	t.Helper()
	regs, err := s.ServiceRegistrations(nil)
	must.NoError(t, err)
	var ids []string
	for _, r := range regs {
		ids = append(ids, r.ID)
	}
	return ids
}

func TestServices_upsertKeepsIndexesOfUnchanged(t *testing.T) {
	s := newStore(t)
	a, _ := servicesFixture(t, s)
	must.NoError(t, s.UpsertServiceRegistrations(5, []*structs.ServiceRegistration{testService("s1", a, "web", 8080)}))
	must.NoError(t, s.UpsertServiceRegistrations(6, []*structs.ServiceRegistration{testService("s1", a, "web", 8080)}))
	idx, err := s.Index(TableServices)
	must.NoError(t, err)
	must.Eq(t, 5, idx, must.Sprint("an unchanged registration bumped the table's index"))

	must.NoError(t, s.UpsertServiceRegistrations(7, []*structs.ServiceRegistration{testService("s1", a, "web", 9090)}))
	regs, err := s.ServiceRegistrationsByName(nil, a.Namespace, "web")
	must.NoError(t, err)
	must.Len(t, 1, regs)
	must.Eq(t, 9090, regs[0].Port)
	must.Eq(t, 5, regs[0].CreateIndex)
	must.Eq(t, 7, regs[0].ModifyIndex)

	bad := testService("", a, "web", 1)
	must.Error(t, s.UpsertServiceRegistrations(8, []*structs.ServiceRegistration{bad}))
}

func TestServices_lateRegistrationOfDoneAllocSkipped(t *testing.T) {
	s := newStore(t)
	a, _ := servicesFixture(t, s)
	done := a.Copy()
	done.ClientStatus = structs.AllocClientStatusComplete
	must.NoError(t, s.UpdateAllocsFromClient(5, []*structs.Allocation{done}))
	must.NoError(t, s.UpsertServiceRegistrations(6, []*structs.ServiceRegistration{testService("s1", a, "web", 1)}))
	must.SliceEmpty(t, serviceIDs(t, s))
}

func TestServices_removedWithAllocsAndNodes(t *testing.T) {
	s := newStore(t)
	a, b := servicesFixture(t, s)
	regs := []*structs.ServiceRegistration{testService("sa", a, "web", 1), testService("sb", b, "web", 2)}
	must.NoError(t, s.UpsertServiceRegistrations(5, regs))

	// The client reports a running allocation: nothing is removed.
	running := a.Copy()
	running.ClientStatus = structs.AllocClientStatusRunning
	must.NoError(t, s.UpdateAllocsFromClient(6, []*structs.Allocation{running}))
	must.Eq(t, []string{"sa", "sb"}, serviceIDs(t, s))

	failed := a.Copy()
	failed.ClientStatus = structs.AllocClientStatusFailed
	must.NoError(t, s.UpdateAllocsFromClient(7, []*structs.Allocation{failed}))
	must.Eq(t, []string{"sb"}, serviceIDs(t, s))

	must.NoError(t, s.UpdateNodeStatus(8, "n1", structs.NodeStatusReady, 1))
	must.Eq(t, []string{"sb"}, serviceIDs(t, s))
	must.NoError(t, s.UpdateNodeStatus(9, "n1", structs.NodeStatusDown, 2))
	must.SliceEmpty(t, serviceIDs(t, s))
	idx, err := s.Index(TableServices)
	must.NoError(t, err)
	must.Eq(t, 9, idx)
}

func TestServices_removedByGCAndDelete(t *testing.T) {
	s := newStore(t)
	a, b := servicesFixture(t, s)
	regs := []*structs.ServiceRegistration{testService("sa", a, "web", 1), testService("sb", b, "web", 2)}
	must.NoError(t, s.UpsertServiceRegistrations(5, regs))
	must.NoError(t, s.DeleteEvals(6, nil, []string{a.ID}))
	must.Eq(t, []string{"sb"}, serviceIDs(t, s))

	must.ErrorIs(t, s.DeleteServiceRegistration(7, "other", "sb"), ErrNotFound)
	must.NoError(t, s.DeleteServiceRegistration(8, b.Namespace, "sb"))
	must.SliceEmpty(t, serviceIDs(t, s))
	must.ErrorIs(t, s.DeleteServiceRegistration(9, b.Namespace, "sb"), ErrNotFound)
}

func TestServices_snapshotRoundTrip(t *testing.T) {
	s := newStore(t)
	a, _ := servicesFixture(t, s)
	must.NoError(t, s.UpsertServiceRegistrations(5, []*structs.ServiceRegistration{testService("sa", a, "web", 1)}))
	snap, err := s.Snapshot()
	must.NoError(t, err)
	var buf bytes.Buffer
	must.NoError(t, snap.Persist(&buf))
	restored, err := Restore(&buf)
	must.NoError(t, err)
	regs, err := restored.ServiceRegistrationsByNode(nil, "n1")
	must.NoError(t, err)
	must.Len(t, 1, regs)
	must.Eq(t, testService("sa", a, "web", 1).Address, regs[0].Address)
	must.Eq(t, 5, regs[0].CreateIndex)
}

package state

import (
	"testing"
	"time"

	"github.com/drover-io/drover/structs"
	"github.com/shoenig/test/must"
)

func TestUpsertNode(t *testing.T) {
	s := newStore(t)
	fresh := testNode("node-1")
	fresh.Status = ""
	fresh.SchedulingEligibility = ""
	must.NoError(t, s.UpsertNode(10, fresh))

	got, err := s.NodeByID(nil, "node-1")
	must.NoError(t, err)
	must.Eq(t, structs.NodeStatusInit, got.Status)
	must.Eq(t, structs.NodeSchedulingEligible, got.SchedulingEligibility)
	must.Eq(t, 10, got.CreateIndex)
	must.Eq(t, 10, got.ModifyIndex)

	drain := &structs.DrainStrategy{Deadline: time.Hour}
	must.NoError(t, s.UpdateNodeDrain(11, "node-1", drain, false, 500))

	again := testNode("node-1")
	again.Status = structs.NodeStatusReady
	again.SchedulingEligibility = structs.NodeSchedulingEligible
	must.NoError(t, s.UpsertNode(20, again))

	got, err = s.NodeByID(nil, "node-1")
	must.NoError(t, err)
	must.Eq(t, structs.NodeStatusReady, got.Status)
	must.Eq(t, 10, got.CreateIndex)
	must.Eq(t, 20, got.ModifyIndex)
	must.True(t, got.Drain, must.Sprint("registering again must not end a drain"))
	must.Eq(t, drain, got.DrainStrategy)
	must.Eq(t, structs.NodeSchedulingIneligible, got.SchedulingEligibility)

	must.ErrorContains(t, s.UpsertNode(21, &structs.Node{}), "node has no ID")
	must.ErrorContains(t, s.UpsertNode(21, nil), "node is nil")
}

func TestUpdateNodeStatus(t *testing.T) {
	s := newStore(t)
	must.NoError(t, s.UpsertNode(10, testNode("node-1")))
	before, err := s.NodeByID(nil, "node-1")
	must.NoError(t, err)

	must.NoError(t, s.UpdateNodeStatus(20, "node-1", structs.NodeStatusDown, 12345))
	got, err := s.NodeByID(nil, "node-1")
	must.NoError(t, err)
	must.Eq(t, structs.NodeStatusDown, got.Status)
	must.Eq(t, 12345, got.StatusUpdatedAt)
	must.Eq(t, 20, got.ModifyIndex)
	must.Eq(t, structs.NodeStatusReady, before.Status, must.Sprint("the stored object must not change in place"))

	must.ErrorIs(t, s.UpdateNodeStatus(21, "node-9", structs.NodeStatusDown, 1), ErrNotFound)
	must.ErrorContains(t, s.UpdateNodeStatus(21, "node-1", "sleeping", 1), `unknown status "sleeping"`)
}

func TestUpdateNodeEligibilityAndDrain(t *testing.T) {
	s := newStore(t)
	must.NoError(t, s.UpsertNode(10, testNode("node-1")))
	node := func() *structs.Node {
		t.Helper()
		n, err := s.NodeByID(nil, "node-1")
		must.NoError(t, err)
		return n
	}

	must.NoError(t, s.UpdateNodeEligibility(11, "node-1", structs.NodeSchedulingIneligible, 100))
	must.Eq(t, structs.NodeSchedulingIneligible, node().SchedulingEligibility)
	must.Eq(t, 100, node().StatusUpdatedAt)
	must.NoError(t, s.UpdateNodeEligibility(12, "node-1", structs.NodeSchedulingEligible, 101))
	must.Eq(t, structs.NodeSchedulingEligible, node().SchedulingEligibility)

	drain := &structs.DrainStrategy{Deadline: time.Minute}
	must.NoError(t, s.UpdateNodeDrain(13, "node-1", drain, false, 102))
	must.True(t, node().Drain)
	must.Eq(t, drain, node().DrainStrategy)
	must.Eq(t, structs.NodeSchedulingIneligible, node().SchedulingEligibility)
	must.Eq(t, 13, node().ModifyIndex)

	err := s.UpdateNodeEligibility(14, "node-1", structs.NodeSchedulingEligible, 103)
	must.ErrorContains(t, err, "a draining node cannot be made eligible")

	must.NoError(t, s.UpdateNodeDrain(15, "node-1", nil, false, 104))
	must.False(t, node().Drain)
	must.Nil(t, node().DrainStrategy)
	must.Eq(t, structs.NodeSchedulingIneligible, node().SchedulingEligibility)

	must.NoError(t, s.UpdateNodeDrain(16, "node-1", drain, false, 105))
	must.NoError(t, s.UpdateNodeDrain(17, "node-1", nil, true, 106))
	must.Eq(t, structs.NodeSchedulingEligible, node().SchedulingEligibility)

	must.ErrorContains(t, s.UpdateNodeEligibility(18, "node-1", "maybe", 107), `unknown eligibility "maybe"`)
	must.ErrorIs(t, s.UpdateNodeEligibility(18, "node-9", structs.NodeSchedulingEligible, 107), ErrNotFound)
	must.ErrorIs(t, s.UpdateNodeDrain(18, "node-9", nil, true, 107), ErrNotFound)
}

func TestDeleteNodeAndNodeReads(t *testing.T) {
	s := newStore(t)
	for i, id := range []string{"abc-1", "abd-2", "xyz-3"} {
		must.NoError(t, s.UpsertNode(uint64(10+i), testNode(id)))
	}
	ids := func(nodes []*structs.Node, err error) []string {
		t.Helper()
		must.NoError(t, err)
		var out []string
		for _, n := range nodes {
			out = append(out, n.ID)
		}
		return out
	}
	must.Eq(t, []string{"abc-1", "abd-2", "xyz-3"}, ids(s.Nodes(nil)))
	must.Eq(t, []string{"abc-1", "abd-2"}, ids(s.NodesByIDPrefix(nil, "ab")))
	must.Eq(t, []string{"abc-1"}, ids(s.NodesByIDPrefix(nil, "abc")))

	must.NoError(t, s.DeleteNode(20, []string{"abc-1", "no-such-node"}))
	must.Eq(t, []string{"abd-2", "xyz-3"}, ids(s.Nodes(nil)))
	gone, err := s.NodeByID(nil, "abc-1")
	must.NoError(t, err)
	must.Nil(t, gone)
}

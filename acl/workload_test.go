package acl

import (
	"testing"

	"github.com/shoenig/test/must"
)

func TestWorkload_grantsItsOwnAllocAndJobOnly(t *testing.T) {
	a := NewWorkload(Workload{Namespace: "prod", JobID: "web", AllocationID: "a1", Task: "t"})
	must.True(t, a.AllowWorkloadAlloc("prod", "a1"))
	must.False(t, a.AllowWorkloadAlloc("prod", "a2"))
	must.False(t, a.AllowWorkloadAlloc("default", "a1"))
	must.True(t, a.AllowWorkloadJob("prod", "web"))
	must.False(t, a.AllowWorkloadJob("prod", "db"))
	must.False(t, a.AllowWorkloadJob("default", "web"))

	// No rule of a policy is granted.
	must.False(t, a.IsManagement())
	must.False(t, a.AllowNamespaceOperation("prod", CapReadJob))
	must.False(t, a.AllowNamespaceOperation(AllNamespaces, CapReadJob))
	must.False(t, a.AllowNamespace("prod"))
	must.False(t, a.AllowNodeRead())
	must.False(t, a.AllowAgentRead())
	must.False(t, a.AllowOperatorCapability(OperatorSnapshotSave))

	// An ACL of policies is no workload's.
	must.Nil(t, New().Workload())
	must.False(t, Management().AllowWorkloadAlloc("prod", "a1"))
	var none *ACL
	must.Nil(t, none.Workload())
}

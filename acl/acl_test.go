package acl

import (
	"testing"

	"github.com/shoenig/test/must"
)

func mustParse(t *testing.T, rules string) *Policy {
	t.Helper()
	p, err := Parse(rules)
	must.NoError(t, err)
	return p
}

func TestACL_nilAllowsNothing(t *testing.T) {
	var a *ACL
	must.False(t, a.AllowNamespaceOperation("default", CapReadJob))
	must.False(t, a.AllowNamespace("default"))
	must.False(t, a.AllowNodeRead())
	must.False(t, a.AllowAgentRead())
	must.False(t, a.AllowOperatorCapability(OperatorSnapshotSave))
	must.False(t, a.IsManagement())
}

func TestACL_managementAllowsEverything(t *testing.T) {
	a := Management()
	must.True(t, a.IsManagement())
	must.True(t, a.AllowNamespaceOperation("anything", CapSubmitRawExec))
	must.True(t, a.AllowNamespaceOperation(AllNamespaces, CapAllocNodeExec))
	must.True(t, a.AllowNodeWrite())
	must.True(t, a.AllowOperatorWrite())
	must.True(t, a.AllowHostVolumeOperation("v", HostVolumeMountReadWrite))
}

func TestACL_noPolicyAllowsNothing(t *testing.T) {
	a := New()
	must.False(t, a.AllowNamespaceOperation("default", CapListJobs))
	must.False(t, a.AllowNamespaceOperation(AllNamespaces, CapListJobs))
	must.False(t, a.AllowNamespace("default"))
	must.False(t, a.AllowNodeRead())
}

func TestACL_capabilitiesAddUpAcrossPolicies(t *testing.T) {
	a := New(
		mustParse(t, `namespace "default" { capabilities = ["read-job"] }`),
		mustParse(t, `namespace "default" { capabilities = ["read-logs"] }`),
	)
	must.True(t, a.AllowNamespaceOperation("default", CapReadJob))
	must.True(t, a.AllowNamespaceOperation("default", CapReadLogs))
	must.False(t, a.AllowNamespaceOperation("default", CapSubmitJob))
	must.False(t, a.AllowNamespaceOperation("other", CapReadJob))
}

func TestACL_denyWinsWhateverTheOrder(t *testing.T) {
	write := mustParse(t, `namespace "default" { policy = "write" }`)
	deny := mustParse(t, `namespace "default" { policy = "deny" }`)
	for _, a := range []*ACL{New(write, deny), New(deny, write)} {
		must.False(t, a.AllowNamespaceOperation("default", CapReadJob))
		must.False(t, a.AllowNamespace("default"))
	}
	a := New(
		mustParse(t, `namespace "default" { capabilities = ["deny", "read-job"] }`),
	)
	must.False(t, a.AllowNamespaceOperation("default", CapReadJob))
}

func TestACL_exactRuleBeatsWildcards(t *testing.T) {
	a := New(mustParse(t, `
namespace "*"    { policy = "write" }
namespace "prod" { policy = "read" }
`))
	must.False(t, a.AllowNamespaceOperation("prod", CapSubmitJob))
	must.True(t, a.AllowNamespaceOperation("prod", CapReadJob))
	must.True(t, a.AllowNamespaceOperation("dev", CapSubmitJob))
}

func TestACL_closestWildcardWins(t *testing.T) {
	a := New(mustParse(t, `
namespace "*"        { policy = "write" }
namespace "prod-*"   { policy = "read" }
namespace "prod-api*" { policy = "deny" }
`))
	must.True(t, a.AllowNamespaceOperation("dev", CapSubmitJob))
	must.True(t, a.AllowNamespaceOperation("prod-web", CapReadJob))
	must.False(t, a.AllowNamespaceOperation("prod-web", CapSubmitJob))
	must.False(t, a.AllowNamespaceOperation("prod-api-1", CapReadJob))
	// Equal distance: the pattern that sorts first, every time.
	b := New(mustParse(t, `
namespace "a*" { capabilities = ["read-job"] }
namespace "*b" { capabilities = ["read-logs"] }
`))
	must.True(t, b.AllowNamespaceOperation("ab", CapReadLogs))
	must.False(t, b.AllowNamespaceOperation("ab", CapReadJob))
}

func TestACL_allNamespacesAsksForAnyRule(t *testing.T) {
	a := New(mustParse(t, `
namespace "team-*" { capabilities = ["list-jobs"] }
namespace "default" { policy = "deny" }
`))
	must.True(t, a.AllowNamespaceOperation(AllNamespaces, CapListJobs))
	must.False(t, a.AllowNamespaceOperation(AllNamespaces, CapSubmitJob))
	must.True(t, a.AllowNamespaceAny("team-a", CapSubmitJob, CapListJobs))
	must.False(t, a.AllowNamespaceAny("team-a", CapSubmitJob, CapReadJob))
}

func TestACL_dispositions(t *testing.T) {
	a := New(
		mustParse(t, `node { policy = "read" }
agent { policy = "write" }
operator { policy = "read" }
plugin { policy = "list" }`),
		mustParse(t, `node { policy = "write" }
agent { policy = "deny" }`),
	)
	must.True(t, a.AllowNodeRead())
	must.True(t, a.AllowNodeWrite())
	must.False(t, a.AllowAgentRead())
	must.True(t, a.AllowOperatorRead())
	must.False(t, a.AllowOperatorWrite())
	must.False(t, a.AllowOperatorCapability(OperatorSnapshotSave))
	must.True(t, a.AllowPluginList())
	must.False(t, a.AllowPluginRead())
	must.False(t, a.AllowQuotaRead())
}

func TestACL_operatorCapabilities(t *testing.T) {
	a := New(mustParse(t, `operator { capabilities = ["snapshot-save"] }`))
	must.True(t, a.AllowOperatorCapability(OperatorSnapshotSave))
	must.False(t, a.AllowOperatorRead())
}

func TestACL_hostVolumesAndNodePools(t *testing.T) {
	a := New(mustParse(t, `
host_volume "*" { policy = "read" }
host_volume "scratch" { policy = "write" }
node_pool "gpu-*" { capabilities = ["read"] }
`))
	must.True(t, a.AllowHostVolumeOperation("data", HostVolumeMountReadOnly))
	must.False(t, a.AllowHostVolumeOperation("data", HostVolumeMountReadWrite))
	must.True(t, a.AllowHostVolumeOperation("scratch", HostVolumeMountReadWrite))
	must.True(t, a.AllowNodePoolOperation("gpu-a", NodePoolRead))
	must.False(t, a.AllowNodePoolOperation("cpu", NodePoolRead))
}

func TestGlobMatch(t *testing.T) {
	cases := []struct {
		pattern, s string
		want       bool
	}{
		{"*", "", true},
		{"*", "anything", true},
		{"prod-*", "prod-", true},
		{"prod-*", "prod-web", true},
		{"prod-*", "prod", false},
		{"*-api", "web-api", true},
		{"*-api", "web-api2", false},
		{"a*b*c", "aXbYc", true},
		{"a*b*c", "abcbc", true},
		{"a*b*c", "acb", false},
		{"**", "x", true},
		{"exact", "exact", true},
		{"exact", "exactly", false},
	}
	for _, tc := range cases {
		must.Eq(t, tc.want, globMatch(tc.pattern, tc.s), must.Sprintf("%q ~ %q", tc.pattern, tc.s))
	}
}

package acl

import (
	"testing"

	"github.com/shoenig/test/must"
)

func mustACL(t *testing.T, rules ...string) *ACL {
	t.Helper()
	var policies []*Policy
	for _, r := range rules {
		p, err := Parse(r)
		must.NoError(t, err)
		policies = append(policies, p)
	}
	return New(policies...)
}

func TestVariables_pathRules(t *testing.T) {
	a := mustACL(t, `namespace "dev" {
  variables {
    path "project/*" { capabilities = ["write", "read", "destroy"] }
    path "project/secret/*" { capabilities = ["deny"] }
    path "system/*" { capabilities = ["read"] }
    path "exact" { capabilities = ["list"] }
  }
}`)
	cases := []struct {
		path, capability string
		want             bool
	}{
		{"project/a", VariablesWrite, true},
		{"project/a", VariablesDestroy, true},
		{"project/a", VariablesList, true}, // write and read imply list
		{"project/secret/key", VariablesRead, false},
		{"project", VariablesRead, false}, // the glob needs the slash
		{"system/x", VariablesRead, true},
		{"system/x", VariablesList, true},
		{"system/x", VariablesWrite, false},
		{"exact", VariablesList, true},
		{"exact", VariablesRead, false},
		{"other", VariablesList, false},
	}
	for _, tc := range cases {
		must.Eq(t, tc.want, a.AllowVariableOperation("dev", tc.path, tc.capability), must.Sprintf("%s on %s", tc.capability, tc.path))
	}
	must.False(t, a.AllowVariableOperation("prod", "project/a", VariablesRead), must.Sprint("a rule of another namespace applied"))
	must.True(t, a.AllowVariableSearch("dev"))
	must.False(t, a.AllowVariableSearch("prod"))
	must.True(t, a.AllowVariableSearch(AllNamespaces))
}

func TestVariables_namespacePolicyAndDeny(t *testing.T) {
	a := mustACL(t, `namespace "*" { policy = "read" }`, `namespace "ops" { policy = "write" }`, `namespace "locked" {
  policy = "deny"
  variables {
    path "*" { capabilities = ["read"] }
  }
}`)
	must.True(t, a.AllowVariableOperation("dev", "any/path", VariablesRead))
	must.False(t, a.AllowVariableOperation("dev", "any/path", VariablesWrite))
	must.True(t, a.AllowVariableOperation("ops", "any/path", VariablesWrite))
	must.True(t, a.AllowVariableOperation("ops", "any/path", VariablesDestroy))
	must.False(t, a.AllowVariableOperation("locked", "any/path", VariablesRead), must.Sprint("a denied namespace's variables were readable"))

	none := mustACL(t, `namespace "dev" { capabilities = ["submit-job"] }`)
	must.False(t, none.AllowVariableOperation("dev", "a", VariablesRead))
	must.False(t, none.AllowVariableSearch("dev"))
	var nilACL *ACL
	must.False(t, nilACL.AllowVariableOperation("dev", "a", VariablesRead))
	must.True(t, Management().AllowVariableOperation("dev", "a", VariablesDestroy))
}

func TestVariables_workloadOwnPaths(t *testing.T) {
	w := NewWorkload(Workload{Namespace: "prod", JobID: "web", TaskGroup: "cache", Task: "redis", AllocationID: "a1"})
	for _, p := range []string{"nomad/jobs", "nomad/jobs/web", "nomad/jobs/web/cache", "nomad/jobs/web/cache/redis"} {
		must.True(t, w.AllowVariableOperation("prod", p, VariablesRead), must.Sprint(p))
		must.True(t, w.AllowVariableOperation("prod", p, VariablesList), must.Sprint(p))
		must.False(t, w.AllowVariableOperation("prod", p, VariablesWrite), must.Sprint(p))
		must.False(t, w.AllowVariableOperation("dev", p, VariablesRead), must.Sprint("another namespace: ", p))
	}
	for _, p := range []string{"nomad/jobs/other", "nomad/jobs/web/other", "nomad/jobs/web/cache/redis/deeper", "nomad", "app/x"} {
		must.False(t, w.AllowVariableOperation("prod", p, VariablesRead), must.Sprint(p))
	}

	child := NewWorkload(Workload{Namespace: "prod", JobID: "batch/dispatch-1-abc", ParentJobID: "batch", TaskGroup: "g", Task: "t"})
	must.True(t, child.AllowVariableOperation("prod", "nomad/jobs/batch/g/t", VariablesRead), must.Sprint("a child job reads its parent's variables"))
	must.False(t, child.AllowVariableOperation("prod", "nomad/jobs/batch/dispatch-1-abc", VariablesRead))
}

func TestVariables_parseRefusals(t *testing.T) {
	for name, rules := range map[string]string{
		"unknown capability": `namespace "x" {
  variables {
    path "a" { capabilities = ["admin"] }
  }
}`,
		"leading slash": `namespace "x" {
  variables {
    path "/a" { capabilities = ["read"] }
  }
}`,
	} {
		_, err := Parse(rules)
		must.Error(t, err, must.Sprint(name))
	}
}

package scheduler

import (
	"testing"

	"github.com/drover-io/drover/structs"
	"github.com/shoenig/test/must"
)

func TestConstraint_targets(t *testing.T) {
	node := mockNode(7)
	node.NodeClass = "big"
	node.NodePool = ""
	cases := []struct {
		target string
		value  string
		ok     bool
	}{
		{"linux", "linux", true},
		{"${attr.kernel.name}", "linux", true},
		{"${attr.missing}", "", false},
		{"${meta.rack}", "r3", true},
		{"${meta.nope}", "", false},
		{"${node.unique.id}", node.ID, true},
		{"${node.unique.name}", "node-0007", true},
		{"${node.datacenter}", "dc1", true},
		{"${node.class}", "big", true},
		{"${node.pool}", structs.DefaultNodePool, true},
		{"${node.region}", "", false},
		{"${attr.kernel.name", "${attr.kernel.name", true},
	}
	for _, tc := range cases {
		value, ok := parseTarget(tc.target).resolve(node)
		must.Eq(t, tc.ok, ok, must.Sprint(tc.target))
		must.Eq(t, tc.value, value, must.Sprint(tc.target))
	}
}

func TestConstraint_operators(t *testing.T) {
	node := mockNode(1)
	node.Attributes["cpu.numcores"] = "16"
	node.Attributes["os.name"] = "ubuntu"
	node.Meta["tags"] = "a, b,c"
	cases := []struct {
		l, op, r string
		want     bool
	}{
		{"${attr.kernel.name}", "=", "linux", true},
		{"${attr.kernel.name}", "==", "linux", true},
		{"${attr.kernel.name}", "is", "windows", false},
		{"${attr.kernel.name}", "", "linux", true},
		{"${attr.kernel.name}", "!=", "windows", true},
		{"${attr.kernel.name}", "not", "linux", false},
		{"${attr.nope}", "=", "", false},
		{"${attr.nope}", "!=", "x", true},
		{"${attr.cpu.numcores}", ">", "8", true},   // numeric, not lexical
		{"${attr.cpu.numcores}", "<", "8", false},  // lexically "16" < "8"
		{"${attr.cpu.numcores}", ">=", "16", true}, //
		{"${attr.os.name}", "<", "zzz", true},      // lexical
		{"${attr.nope}", "<", "1", false},
		{"${attr.os.name}", structs.ConstraintRegex, "^ubu", true},
		{"${attr.os.name}", structs.ConstraintRegex, "[invalid", false},
		{"${attr.os.version}", structs.ConstraintVersion, ">= 20.04", true},
		{"${attr.os.version}", structs.ConstraintSemver, "> 22.4.0", false},
		{"${meta.tags}", structs.ConstraintSetContains, "a,c", true},
		{"${meta.tags}", structs.ConstraintSetContainsAll, "a,d", false},
		{"${meta.tags}", structs.ConstraintSetContainsAny, "d,b", true},
		{"${meta.tags}", structs.ConstraintSetContainsAny, "d,e", false},
		{"${meta.rack}", structs.ConstraintAttrIsSet, "", true},
		{"${meta.nope}", structs.ConstraintAttrIsNotSet, "", true},
		{"${attr.kernel.name}", "bogus", "linux", false},
	}
	for _, tc := range cases {
		check, ok := compileConstraint(&structs.Constraint{LTarget: tc.l, RTarget: tc.r, Operand: tc.op})
		must.True(t, ok)
		must.Eq(t, tc.want, check.feasible(node), must.Sprintf("%s %s %s", tc.l, tc.op, tc.r))
	}
	_, ok := compileConstraint(&structs.Constraint{Operand: structs.ConstraintDistinctHosts})
	must.False(t, ok)
}

func TestConstraintReason(t *testing.T) {
	must.Eq(t, "${attr.kernel.name} = linux", constraintReason(&structs.Constraint{LTarget: "${attr.kernel.name}", RTarget: "linux", Operand: "="}))
	must.Eq(t, "${meta.x} is_set", constraintReason(&structs.Constraint{LTarget: "${meta.x}", Operand: structs.ConstraintAttrIsSet}))
}

func TestGlobMatch(t *testing.T) {
	cases := []struct {
		pattern, name string
		want          bool
	}{
		{"dc1", "dc1", true},
		{"dc1", "dc10", false},
		{"*", "anything", true},
		{"*", "", true},
		{"dc*", "dc1", true},
		{"dc*", "dc", true},
		{"dc*", "xdc1", false},
		{"*-east", "us-east", true},
		{"*-east", "us-east-1", false},
		{"us-*-1", "us-east-1", true},
		{"us-*-1", "us-1", false},
		{"a*b*c", "abc", true},
		{"a*b*c", "axxbyyc", true},
		{"a*b*c", "acb", false},
		{"a*a", "a", false},
	}
	for _, tc := range cases {
		must.Eq(t, tc.want, globMatch(tc.pattern, tc.name), must.Sprintf("%q ~ %q", tc.pattern, tc.name))
	}
}

func TestCapacity_fitAndScore(t *testing.T) {
	node := mockNode(0) // 4000 MHz, 4 cores, 8192 MiB, 100000 MiB disk free
	c := capacityOf(node)
	must.Eq(t, int64(4000), c.cpu)
	must.Eq(t, int64(8192), c.memoryMB)
	must.Eq(t, int64(1000), c.sharesPerCore)

	cases := []struct {
		used, ask resources
		ok        bool
		dimension string
	}{
		{resources{}, resources{cpu: 4000, memoryMB: 8192}, true, ""},
		{resources{cpu: 3600}, resources{cpu: 500}, false, dimensionCPU},
		{resources{memoryMB: 8000}, resources{cpu: 1, memoryMB: 200}, false, dimensionMemory},
		{resources{}, resources{cores: 5}, false, dimensionCPU},
		{resources{cores: 3}, resources{cores: 1}, true, ""},
		{resources{cores: 2, cpu: 1}, resources{cores: 2}, false, dimensionCPU},
		{resources{diskMB: 99_999}, resources{diskMB: 2}, false, dimensionDisk},
	}
	for _, tc := range cases {
		ok, dim := c.fit(tc.used, tc.ask)
		must.Eq(t, tc.ok, ok, must.Sprintf("%+v + %+v", tc.used, tc.ask))
		must.Eq(t, tc.dimension, dim)
	}

	empty := c.binPackScore(resources{}, resources{cpu: 100, memoryMB: 100})
	half := c.binPackScore(resources{cpu: 2000, memoryMB: 4096}, resources{cpu: 100, memoryMB: 100})
	full := c.binPackScore(resources{cpu: 3900, memoryMB: 8092}, resources{cpu: 100, memoryMB: 100})
	must.Less(t, half, empty)
	must.Less(t, full, half)
	must.Eq(t, 1.0, full)
	must.GreaterEq(t, 0.0, empty)
}

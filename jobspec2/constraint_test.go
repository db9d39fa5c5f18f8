package jobspec2

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

func TestConstraintForms(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []*api.Constraint
	}{
		{
			name: "omitted operator means equal",
			body: "attribute = \"${attr.os.name}\"\nvalue = \"ubuntu\"",
			want: []*api.Constraint{{LTarget: "${attr.os.name}", Operand: "=", RTarget: "ubuntu"}},
		},
		{
			name: "explicit operator",
			body: "attribute = \"${attr.cpu.numcores}\"\noperator = \">=\"\nvalue = \"4\"",
			want: []*api.Constraint{{LTarget: "${attr.cpu.numcores}", Operand: ">=", RTarget: "4"}},
		},
		{
			name: "operator regexp",
			body: "attribute = \"${attr.os.name}\"\noperator = \"regexp\"\nvalue = \"^ubu\"",
			want: []*api.Constraint{{LTarget: "${attr.os.name}", Operand: "regexp", RTarget: "^ubu"}},
		},
		{
			name: "regexp shorthand",
			body: "attribute = \"${attr.os.name}\"\nregexp = \"^ubu\"",
			want: []*api.Constraint{{LTarget: "${attr.os.name}", Operand: "regexp", RTarget: "^ubu"}},
		},
		{
			name: "version shorthand",
			body: "attribute = \"${attr.kernel.version}\"\nversion = \"> 5.0\"",
			want: []*api.Constraint{{LTarget: "${attr.kernel.version}", Operand: "version", RTarget: "> 5.0"}},
		},
		{
			name: "semver shorthand",
			body: "attribute = \"${attr.nomad.version}\"\nsemver = \">= 1.2.0\"",
			want: []*api.Constraint{{LTarget: "${attr.nomad.version}", Operand: "semver", RTarget: ">= 1.2.0"}},
		},
		{
			name: "set_contains shorthand",
			body: "attribute = \"${meta.features}\"\nset_contains = \"gpu,ssd\"",
			want: []*api.Constraint{{LTarget: "${meta.features}", Operand: "set_contains", RTarget: "gpu,ssd"}},
		},
		{
			name: "distinct_hosts",
			body: "distinct_hosts = true",
			want: []*api.Constraint{{Operand: "distinct_hosts"}},
		},
		{
			name: "distinct_hosts false asks for nothing",
			body: "distinct_hosts = false",
		},
		{
			name: "distinct_property with limit",
			body: "distinct_property = \"${meta.rack}\"\nvalue = \"3\"",
			want: []*api.Constraint{{LTarget: "${meta.rack}", Operand: "distinct_property", RTarget: "3"}},
		},
		{
			name: "is_set operator",
			body: "attribute = \"${meta.ssd}\"\noperator = \"is_set\"",
			want: []*api.Constraint{{LTarget: "${meta.ssd}", Operand: "is_set"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			job := mustParseString(t, "job \"j\" {\n  constraint {\n"+tc.body+"\n  }\n}\n")
			must.Eq(t, tc.want, job.Constraints)
		})
	}
}

func TestConstraintConflictingOperators(t *testing.T) {
	_, err := parseString(t, "job \"j\" {\n  constraint {\n    operator = \"=\"\n    regexp = \"x\"\n  }\n}\n")
	must.ErrorContains(t, err, "job.hcl:2,3-13: Conflicting constraint operators; A constraint has one operator, but this one sets operator, regexp.")
}

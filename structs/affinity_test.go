package structs

import (
	"testing"

	"github.com/shoenig/test/must"
)

func TestAffinity_Validate(t *testing.T) {
	for _, tc := range []struct {
		name string
		aff  *Affinity
		want []string
	}{
		{name: "valid", aff: &Affinity{LTarget: "${meta.rack}", RTarget: "r1", Operand: "=", Weight: 50}},
		{name: "negative", aff: &Affinity{LTarget: "${meta.rack}", RTarget: "r1", Operand: "!=", Weight: -100}},
		{name: "zero weight", aff: &Affinity{LTarget: "${meta.rack}", RTarget: "r1", Operand: "=", Weight: 0},
			want: []string{`Job affinity #1: weight must be between -100 and 100 and not zero, got 0`}},
		{name: "weight too large", aff: &Affinity{LTarget: "${meta.rack}", RTarget: "r1", Operand: "=", Weight: 127},
			want: []string{`Job affinity #1: weight must be between -100 and 100 and not zero, got 127`}},
		{name: "placement operator", aff: &Affinity{LTarget: "${meta.rack}", RTarget: "r1", Operand: "distinct_hosts", Weight: 10},
			want: []string{`Job affinity #1: Unknown operator "distinct_hosts" (an affinity compares an attribute with a value: =, !=, <, <=, >, >=, regexp, version, semver, set_contains, set_contains_all, set_contains_any)`}},
		{name: "missing targets", aff: &Affinity{Operand: "=", Weight: 10},
			want: []string{`Job affinity #1: Missing attribute`, `Job affinity #1: Missing value`}},
		{name: "bad regexp", aff: &Affinity{LTarget: "${meta.rack}", RTarget: "(", Operand: "regexp", Weight: 10},
			want: []string{"Job affinity #1: Invalid regexp \"(\": error parsing regexp: missing closing ): `(`"}},
		{name: "null", want: []string{`Job affinity #1: Missing definition (null)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := validJob("batch")
			j.Affinities = []*Affinity{tc.aff}
			mustProblems(t, tc.want, j.Validate())
		})
	}
}

func TestAffinity_CanonicalizeCopyDiff(t *testing.T) {
	j := validJob("batch")
	j.TaskGroups[0].Tasks[0].Affinities = []*Affinity{{LTarget: "${meta.rack}", RTarget: "r1", Weight: 20}}
	j.Canonicalize()
	must.Eq(t, "=", j.TaskGroups[0].Tasks[0].Affinities[0].Operand)

	c := j.Copy()
	c.TaskGroups[0].Tasks[0].Affinities[0].Weight = 30
	must.Eq(t, int8(20), j.TaskGroups[0].Tasks[0].Affinities[0].Weight)

	d, err := j.Diff(c, false)
	must.NoError(t, err)
	must.Eq(t, DiffTypeEdited, d.TaskGroups[0].Tasks[0].Type)
}

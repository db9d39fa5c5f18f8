package structs

import (
	"testing"

	"github.com/shoenig/test/must"
)

func TestSpread_Validate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		spread *Spread
		want   []string
	}{
		{name: "even", spread: &Spread{Attribute: "${meta.rack}", Weight: 50}},
		{name: "targets", spread: &Spread{Attribute: "${meta.rack}", Weight: 100, SpreadTarget: []*SpreadTarget{{Value: "a", Percent: 60}, {Value: "b", Percent: 40}}}},
		{name: "no attribute", spread: &Spread{Weight: 50}, want: []string{`Job spread #1: Missing attribute`}},
		{name: "zero weight", spread: &Spread{Attribute: "${meta.rack}"}, want: []string{`Job spread #1: weight must be between 1 and 100, got 0`}},
		{name: "targets over 100", spread: &Spread{Attribute: "${meta.rack}", Weight: 10, SpreadTarget: []*SpreadTarget{{Value: "a", Percent: 60}, {Value: "b", Percent: 60}}},
			want: []string{`Job spread #1: the targets' percents add up to 120, more than 100`}},
		{name: "duplicate target", spread: &Spread{Attribute: "${meta.rack}", Weight: 10, SpreadTarget: []*SpreadTarget{{Value: "a", Percent: 10}, {Value: "a", Percent: 10}}},
			want: []string{`Job spread #1: target "a" is given more than once`}},
		{name: "percent over 100", spread: &Spread{Attribute: "${meta.rack}", Weight: 10, SpreadTarget: []*SpreadTarget{{Value: "a", Percent: 200}}},
			want: []string{`Job spread #1: target "a": percent must be at most 100, got 200`, `Job spread #1: the targets' percents add up to 200, more than 100`}},
		{name: "null", want: []string{`Job spread #1: Missing definition (null)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := validJob("batch")
			j.Spreads = []*Spread{tc.spread}
			mustProblems(t, tc.want, j.Validate())
		})
	}
}

func TestSpread_CopyDiff(t *testing.T) {
	j := validJob("batch")
	j.TaskGroups[0].Spreads = []*Spread{{Attribute: "${meta.rack}", Weight: 20, SpreadTarget: []*SpreadTarget{{Value: "a", Percent: 50}}}, nil}
	c := j.Copy()
	c.TaskGroups[0].Spreads[0].SpreadTarget[0].Percent = 70
	must.Eq(t, uint8(50), j.TaskGroups[0].Spreads[0].SpreadTarget[0].Percent)

	d, err := j.Diff(c, false)
	must.NoError(t, err)
	must.Eq(t, DiffTypeEdited, d.TaskGroups[0].Type)
}

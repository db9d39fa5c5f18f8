package structs

import (
	"fmt"
	"strconv"
)

// DefaultSpreadWeight is the weight of a spread that gives none, as in
// Nomad.
const DefaultSpreadWeight = 50

// Spread asks the scheduler to spread a group's allocations over the
// values of a node attribute: evenly, or by the percentages of its
// targets. Like an affinity it only scores nodes.
type Spread struct {
	Attribute    string
	Weight       int8
	SpreadTarget []*SpreadTarget
}

// SpreadTarget is the share of a group's allocations a spread wants on
// the nodes whose attribute is Value.
type SpreadTarget struct {
	Value   string
	Percent uint8
}

// validateSpreads checks each spread of a job or group.
func validateSpreads(p *problems, where string, ss []*Spread) {
	for i, s := range ss {
		s.validate(p, fmt.Sprintf("%s spread #%d", where, i+1))
	}
}

// validate checks one spread. Messages use the jobspec's names.
func (s *Spread) validate(p *problems, where string) {
	if s == nil {
		p.add(where, "Missing definition (null)")
		return
	}
	if s.Attribute == "" {
		p.add(where, "Missing attribute")
	}
	if s.Weight <= 0 || s.Weight > 100 {
		p.add(where, "weight must be between 1 and 100, got %d", s.Weight)
	}
	seen := map[string]bool{}
	sum := 0
	for i, t := range s.SpreadTarget {
		if t == nil {
			p.add(where, "target #%d: Missing definition (null)", i+1)
			continue
		}
		if seen[t.Value] {
			p.add(where, "target %q is given more than once", t.Value)
		}
		seen[t.Value] = true
		if t.Percent > 100 {
			p.add(where, "target %q: percent must be at most 100, got %d", t.Value, t.Percent)
		}
		sum += int(t.Percent)
	}
	if sum > 100 {
		p.add(where, "the targets' percents add up to %d, more than 100", sum)
	}
}

func copySpreads(in []*Spread) []*Spread {
	return copyEach(in, func(s *Spread) *Spread {
		if s == nil {
			return nil
		}
		c := *s
		c.SpreadTarget = copyEach(s.SpreadTarget, clonePtr[SpreadTarget])
		return &c
	})
}

func spreadDiffs(old, next []*Spread, contextual bool) []*ObjectDiff {
	return objectSetDiff("Spread", spreadFields(old), spreadFields(next), contextual)
}

func spreadFields(ss []*Spread) []map[string]string {
	var out []map[string]string
	for _, s := range ss {
		if s == nil {
			continue
		}
		fields := map[string]string{"Attribute": s.Attribute, "Weight": strconv.Itoa(int(s.Weight))}
		for _, t := range s.SpreadTarget {
			if t != nil {
				fields["SpreadTarget["+t.Value+"]"] = strconv.Itoa(int(t.Percent))
			}
		}
		out = append(out, fields)
	}
	return out
}

func jobSpreads(j *Job) []*Spread {
	if j == nil {
		return nil
	}
	return j.Spreads
}

func groupSpreads(tg *TaskGroup) []*Spread {
	if tg == nil {
		return nil
	}
	return tg.Spreads
}

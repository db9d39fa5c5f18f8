package structs

import (
	"fmt"
	"regexp"
	"strconv"
)

// DefaultAffinityWeight is the weight of an affinity that gives none, as
// in Nomad.
const DefaultAffinityWeight = 50

// MaxAffinityWeight bounds an affinity's weight both ways.
const MaxAffinityWeight = 100

// Affinity asks the scheduler to prefer (a positive weight) or avoid (a
// negative one) the nodes whose attribute, compared with the operator,
// matches the value. Unlike a constraint it filters no node out.
type Affinity struct {
	LTarget string
	RTarget string
	Operand string
	Weight  int8
}

// affinityOperators are the constraint operators an affinity may use:
// those that compare one node's attribute with a value.
var affinityOperators = map[string]bool{
	"=": true, "==": true, "is": true, "!=": true, "not": true,
	"<": true, "<=": true, ">": true, ">=": true,
	ConstraintRegex: true, ConstraintVersion: true, ConstraintSemver: true,
	ConstraintSetContains: true, ConstraintSetContainsAll: true, ConstraintSetContainsAny: true,
}

// Constraint is the node test of the affinity.
func (a *Affinity) Constraint() *Constraint {
	return &Constraint{LTarget: a.LTarget, RTarget: a.RTarget, Operand: a.Operand}
}

// validateAffinities checks each affinity of a job, group or task.
func validateAffinities(p *problems, where string, as []*Affinity) {
	for i, a := range as {
		a.validate(p, fmt.Sprintf("%s affinity #%d", where, i+1))
	}
}

// validate checks one affinity. Messages use the jobspec's names:
// attribute, operator, value and weight.
func (a *Affinity) validate(p *problems, where string) {
	if a == nil {
		p.add(where, "Missing definition (null)")
		return
	}
	if !affinityOperators[a.Operand] {
		p.add(where, "Unknown operator %q (an affinity compares an attribute with a value: =, !=, <, <=, >, >=, regexp, version, semver, set_contains, set_contains_all, set_contains_any)", a.Operand)
	}
	if a.LTarget == "" {
		p.add(where, "Missing attribute")
	}
	if a.RTarget == "" {
		p.add(where, "Missing value")
	}
	if a.Operand == ConstraintRegex {
		if _, err := regexp.Compile(a.RTarget); err != nil {
			p.add(where, "Invalid regexp %q: %w", a.RTarget, err)
		}
	}
	if a.Weight == 0 || a.Weight > MaxAffinityWeight || a.Weight < -MaxAffinityWeight {
		p.add(where, "weight must be between -%d and %d and not zero, got %d", MaxAffinityWeight, MaxAffinityWeight, a.Weight)
	}
}

// canonicalizeAffinities makes an omitted operator "=".
func canonicalizeAffinities(as []*Affinity) {
	for _, a := range as {
		if a != nil && a.Operand == "" {
			a.Operand = "="
		}
	}
}

func copyAffinities(in []*Affinity) []*Affinity {
	return copyEach(in, clonePtr[Affinity])
}

func affinityDiffs(old, next []*Affinity, contextual bool) []*ObjectDiff {
	return objectSetDiff("Affinity", affinityFields(old), affinityFields(next), contextual)
}

func affinityFields(as []*Affinity) []map[string]string {
	var out []map[string]string
	for _, a := range as {
		if a != nil {
			out = append(out, map[string]string{
				"LTarget": a.LTarget, "RTarget": a.RTarget, "Operand": a.Operand,
				"Weight": strconv.Itoa(int(a.Weight)),
			})
		}
	}
	return out
}

func jobAffinities(j *Job) []*Affinity {
	if j == nil {
		return nil
	}
	return j.Affinities
}

func groupAffinities(tg *TaskGroup) []*Affinity {
	if tg == nil {
		return nil
	}
	return tg.Affinities
}

func taskAffinities(t *Task) []*Affinity {
	if t == nil {
		return nil
	}
	return t.Affinities
}

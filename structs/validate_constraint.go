package structs

import (
	"fmt"
	"regexp"
	"strconv"
)

// constraintNeeds says which targets an operator needs.
type constraintNeeds struct {
	attribute bool // LTarget, the node attribute compared
	value     bool // RTarget, what it is compared with
}

// constraintOperators are the operators Drover knows, with what each needs.
// distinct_hosts needs neither; distinct_property's value (a limit) is
// optional.
var constraintOperators = map[string]constraintNeeds{
	"=":                      {attribute: true, value: true},
	"==":                     {attribute: true, value: true},
	"is":                     {attribute: true, value: true},
	"!=":                     {attribute: true, value: true},
	"not":                    {attribute: true, value: true},
	"<":                      {attribute: true, value: true},
	"<=":                     {attribute: true, value: true},
	">":                      {attribute: true, value: true},
	">=":                     {attribute: true, value: true},
	ConstraintRegex:          {attribute: true, value: true},
	ConstraintVersion:        {attribute: true, value: true},
	ConstraintSemver:         {attribute: true, value: true},
	ConstraintSetContains:    {attribute: true, value: true},
	ConstraintSetContainsAll: {attribute: true, value: true},
	ConstraintSetContainsAny: {attribute: true, value: true},
	ConstraintAttrIsSet:      {attribute: true},
	ConstraintAttrIsNotSet:   {attribute: true},
	ConstraintDistinctHosts:  {},
	ConstraintDistinctProperty: {
		attribute: true,
	},
}

// validateConstraints checks each constraint of a job, group or task.
func validateConstraints(p *problems, where string, cs []*Constraint) {
	for i, c := range cs {
		c.validate(p, fmt.Sprintf("%s constraint #%d", where, i+1))
	}
}

// validate checks one constraint. Messages use the jobspec's names:
// attribute (LTarget), value (RTarget) and operator (Operand).
func (c *Constraint) validate(p *problems, where string) {
	if c == nil {
		p.add(where, "Missing definition (null)")
		return
	}
	needs, known := constraintOperators[c.Operand]
	if !known {
		p.add(where, "Unknown operator %q", c.Operand)
		return
	}
	if needs.attribute && c.LTarget == "" {
		p.add(where, "Missing attribute for operator %q", c.Operand)
	}
	if needs.value && c.RTarget == "" {
		p.add(where, "Missing value for operator %q", c.Operand)
	}
	switch c.Operand {
	case ConstraintRegex:
		if _, err := regexp.Compile(c.RTarget); err != nil {
			p.add(where, "Invalid regexp %q: %w", c.RTarget, err)
		}
	case ConstraintDistinctHosts:
		if c.RTarget != "" {
			if _, err := strconv.ParseBool(c.RTarget); err != nil {
				p.add(where, "Invalid value %q for distinct_hosts: must be true or false", c.RTarget)
			}
		}
	case ConstraintDistinctProperty:
		if c.RTarget != "" {
			if n, err := strconv.ParseUint(c.RTarget, 10, 64); err != nil || n == 0 {
				p.add(where, "Invalid value %q for distinct_property: must be a positive integer", c.RTarget)
			}
		}
	}
}

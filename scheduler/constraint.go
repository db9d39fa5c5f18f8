package scheduler

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/drover-io/drover/structs"
)

// constraintCheck is a compiled constraint that tests one node.
type constraintCheck struct {
	// reason names the constraint in placement metrics.
	reason      string
	left, right target
	test        func(l string, lok bool, r string, rok bool) bool
}

// constraintReason is how metrics name a constraint that filtered a node.
func constraintReason(c *structs.Constraint) string {
	return strings.TrimSpace(fmt.Sprintf("%s %s %s", c.LTarget, c.Operand, c.RTarget))
}

// compileConstraint prepares a node constraint. Operators that depend on
// other placements (distinct_hosts, distinct_property) are not node
// constraints; ok is false for them.
func compileConstraint(c *structs.Constraint) (check *constraintCheck, ok bool) {
	check = &constraintCheck{
		reason: constraintReason(c),
		left:   parseTarget(c.LTarget),
		right:  parseTarget(c.RTarget),
	}
	switch c.Operand {
	case structs.ConstraintDistinctHosts, structs.ConstraintDistinctProperty:
		return nil, false
	case "", "=", "==", "is":
		check.test = func(l string, lok bool, r string, rok bool) bool { return lok && rok && l == r }
	case "!=", "not":
		check.test = func(l string, lok bool, r string, rok bool) bool { return lok != rok || l != r }
	case "<", "<=", ">", ">=":
		op := c.Operand
		check.test = func(l string, lok bool, r string, rok bool) bool { return lok && rok && compareOrdered(op, l, r) }
	case structs.ConstraintRegex:
		check.test = regexpTest(check.right)
	case structs.ConstraintVersion, structs.ConstraintSemver:
		check.test = versionTest(check.right, c.Operand == structs.ConstraintSemver)
	case structs.ConstraintSetContains, structs.ConstraintSetContainsAll:
		check.test = func(l string, lok bool, r string, rok bool) bool { return lok && rok && setContains(l, r, true) }
	case structs.ConstraintSetContainsAny:
		check.test = func(l string, lok bool, r string, rok bool) bool { return lok && rok && setContains(l, r, false) }
	case structs.ConstraintAttrIsSet:
		check.test = func(_ string, lok bool, _ string, _ bool) bool { return lok }
	case structs.ConstraintAttrIsNotSet:
		check.test = func(_ string, lok bool, _ string, _ bool) bool { return !lok }
	default:
		// Validation rejects unknown operators; a stored job that has one
		// anyway matches no node rather than every node.
		check.test = func(string, bool, string, bool) bool { return false }
	}
	return check, true
}

// feasible tests the constraint on a node.
func (c *constraintCheck) feasible(node *structs.Node) bool {
	l, lok := c.left.resolve(node)
	r, rok := c.right.resolve(node)
	return c.test(l, lok, r, rok)
}

// compareOrdered compares numerically when both sides are numbers, and
// lexically otherwise.
func compareOrdered(op, l, r string) bool {
	var cmp int
	lf, lerr := strconv.ParseFloat(l, 64)
	rf, rerr := strconv.ParseFloat(r, 64)
	if lerr == nil && rerr == nil {
		switch {
		case lf < rf:
			cmp = -1
		case lf > rf:
			cmp = 1
		}
	} else {
		cmp = strings.Compare(l, r)
	}
	switch op {
	case "<":
		return cmp < 0
	case "<=":
		return cmp <= 0
	case ">":
		return cmp > 0
	default:
		return cmp >= 0
	}
}

// regexpTest matches the left value against the right one as a regular
// expression, compiled once per pattern.
func regexpTest(right target) func(string, bool, string, bool) bool {
	compiled := make(map[string]*regexp.Regexp)
	return func(l string, lok bool, r string, rok bool) bool {
		if !lok || !rok {
			return false
		}
		re, seen := compiled[r]
		if !seen {
			re, _ = regexp.Compile(r) // an invalid pattern matches nothing
			compiled[r] = re
		}
		return re != nil && re.MatchString(l)
	}
}

// versionTest checks the left value, a version, against the right one, a
// version constraint, parsed once per constraint string.
func versionTest(right target, strict bool) func(string, bool, string, bool) bool {
	parsed := make(map[string]versionConstraint)
	return func(l string, lok bool, r string, rok bool) bool {
		if !lok || !rok {
			return false
		}
		vc, seen := parsed[r]
		if !seen {
			vc, _ = parseVersionConstraint(r, strict) // an invalid constraint matches nothing
			parsed[r] = vc
		}
		if vc == nil {
			return false
		}
		v, err := parseVersion(l, strict)
		return err == nil && vc.allows(v)
	}
}

// setContains reports whether the comma-separated set l holds all (or,
// when all is false, any) of the comma-separated items of r.
func setContains(l, r string, all bool) bool {
	have := make(map[string]bool)
	for item := range strings.SplitSeq(l, ",") {
		have[strings.TrimSpace(item)] = true
	}
	for item := range strings.SplitSeq(r, ",") {
		found := have[strings.TrimSpace(item)]
		if all && !found {
			return false
		}
		if !all && found {
			return true
		}
	}
	return all
}

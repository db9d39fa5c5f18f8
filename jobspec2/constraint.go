package jobspec2

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/drover-io/drover/api"
)

// Constraint operands the block may also name as an argument of its own,
// e.g. `regexp = "^linux"` for operator = "regexp", value = "^linux".
var constraintShorthands = []string{
	"regexp", "version", "semver", "set_contains", "set_contains_any", "set_contains_all",
}

const (
	operandEqual            = "="
	operandDistinctHosts    = "distinct_hosts"
	operandDistinctProperty = "distinct_property"
)

var constraintSchema = func() *hcl.BodySchema {
	s := &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
		{Name: "attribute"}, {Name: "operator"}, {Name: "value"},
		{Name: operandDistinctHosts}, {Name: operandDistinctProperty},
	}}
	for _, name := range constraintShorthands {
		s.Attributes = append(s.Attributes, hcl.AttributeSchema{Name: name})
	}
	return s
}()

func (d *decoder) constraints(blocks hcl.Blocks) []*api.Constraint {
	var out []*api.Constraint
	for _, b := range blocks {
		if c := d.constraint(b); c != nil {
			out = append(out, c)
		}
	}
	return out
}

// constraint decodes one constraint block. It returns nil for
// `distinct_hosts = false`, which asks for nothing.
func (d *decoder) constraint(block *hcl.Block) *api.Constraint {
	attrs := d.content(block.Body, constraintSchema).Attributes
	c := &api.Constraint{
		LTarget: d.stringValue(attrs["attribute"]),
		Operand: d.stringValue(attrs["operator"]),
		RTarget: d.stringValue(attrs["value"]),
	}

	var operandArgs []string
	if attrs["operator"] != nil {
		operandArgs = append(operandArgs, "operator")
	}
	for _, name := range constraintShorthands {
		if attr := attrs[name]; attr != nil {
			operandArgs = append(operandArgs, name)
			c.Operand = name
			c.RTarget = d.stringValue(attr)
		}
	}
	if attr := attrs[operandDistinctProperty]; attr != nil {
		operandArgs = append(operandArgs, operandDistinctProperty)
		c.Operand = operandDistinctProperty
		c.LTarget = d.stringValue(attr)
	}
	distinctHosts := attrs[operandDistinctHosts]
	if distinctHosts != nil {
		operandArgs = append(operandArgs, operandDistinctHosts)
		c.Operand = operandDistinctHosts
	}

	if len(operandArgs) > 1 {
		d.add(errorAt(block.DefRange, "Conflicting constraint operators",
			fmt.Sprintf("A constraint has one operator, but this one sets %s.", strings.Join(operandArgs, ", "))))
		return nil
	}
	if distinctHosts != nil {
		if on := d.bool(distinctHosts); on == nil || !*on {
			return nil
		}
	}
	if c.Operand == "" {
		c.Operand = operandEqual
	}
	return c
}

package jobspec2

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// An evaluation budget bounds the work of evaluating one jobspec. HCL
// evaluation cannot be interrupted, and a few hundred bytes of nested for
// expressions, of templates that double a string through locals, or of
// functions such as range() ask for more work than any machine has. So
// before an expression is evaluated, the nodes where work can multiply are
// wrapped in ones that charge the budget (see wrap):
//
//   - every reference and literal, by the size of its value: a value used
//     n times costs n times its size, so no template, operator or
//     conversion can build more than what was charged;
//   - every operator, by the size of its result, which an operator can make
//     far larger than its operands ("1e100000" * 1);
//   - every iteration of a for expression;
//   - every function call, by the size of its arguments and result, and
//     beforehand by the size of what it is about to build (range, format,
//     setproduct, ...; see functions_guard.go).
//
// Once the budget is spent, or the context ends, every wrapped node
// evaluates to an unknown value without doing its work, which HCL
// propagates cheaply, and the parse fails with the reason. The context is
// checked every few hundred charges, so a parse stops within microseconds
// of its deadline or of its client going away.
type budget struct {
	ctx      context.Context
	left     int64
	limits   Limits
	charges  int
	failure  error
	reported bool
}

// errEvalTimeout is the cause of the context of a parse whose own
// evaluation deadline passed.
var errEvalTimeout = errors.New("evaluation timeout")

// maxNumberDigits bounds the digits of a number a jobspec computes with.
// Turning a number into text takes time that grows with the square of its
// digits (a thousand digits take microseconds, a million seconds), and no
// field of a job holds more than twenty.
const maxNumberDigits = 1000

// checkEvery is how many charges pass between looks at the context.
const checkEvery = 256

// Work units, weighed by what they cost HCL: a byte of a string is the
// unit; holding any value costs valueUnits more, and an iteration of a
// for expression, which makes a scope and evaluates its body,
// iterationUnits.
const (
	valueUnits     = 4
	iterationUnits = 32
)

func newBudget(ctx context.Context, limits Limits) *budget {
	return &budget{ctx: ctx, left: limits.MaxEvalWork, limits: limits}
}

// failed reports whether the budget is spent or the context ended. A nil
// budget never fails: it charges nothing.
func (b *budget) failed() bool {
	return b != nil && b.failure != nil
}

// fail records why evaluation stops, keeping the first reason.
func (b *budget) fail(err error) {
	if b.failure == nil {
		b.failure = err
	}
}

// charge spends n units and reports whether evaluation may go on.
func (b *budget) charge(n int64) bool {
	if b == nil {
		return true
	}
	if b.failed() {
		return false
	}
	b.left -= n
	if b.left < 0 {
		b.fail(fmt.Errorf("evaluating the jobspec takes more than %d units of work, the limit (limits.hcl_max_eval_work)", b.limits.MaxEvalWork))
		return false
	}
	b.charges++
	if b.charges%checkEvery == 0 {
		if err := b.ctx.Err(); err != nil {
			b.failContext()
			return false
		}
	}
	return true
}

// failContext records why the context ended.
func (b *budget) failContext() {
	if errors.Is(context.Cause(b.ctx), errEvalTimeout) {
		b.fail(fmt.Errorf("evaluating the jobspec takes longer than %s, the limit (limits.hcl_eval_timeout)", b.limits.EvalTimeout))
		return
	}
	b.fail(fmt.Errorf("parse stopped: %w", context.Cause(b.ctx)))
}

// chargeValue spends what v costs: see valueCost.
func (b *budget) chargeValue(v cty.Value) bool {
	if b == nil {
		return true
	}
	if b.failed() {
		return false
	}
	cost, err := valueCost(v, 0, b.limits.MaxDepth, b.left+1)
	if err != nil {
		b.fail(err)
		return false
	}
	return b.charge(cost)
}

// diagnostic is the failure as an error diagnostic at rng, or nil when
// evaluation has not failed or the failure was already reported.
func (b *budget) diagnostic(rng hcl.Range) *hcl.Diagnostic {
	if b == nil || b.failure == nil || b.reported {
		return nil
	}
	b.reported = true
	return errorAt(rng, "Jobspec evaluation stopped", upperFirst(b.failure.Error())+".")
}

func upperFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// valueCost is what holding or building v costs: valueUnits per value,
// plus the bytes of a string, the digits of a number, and the keys and
// elements of a collection. It stops counting above limit, and fails for a value
// nested deeper than maxDepth or a number with more than maxNumberDigits
// digits.
func valueCost(v cty.Value, depth, maxDepth int, limit int64) (int64, error) {
	if depth > maxDepth {
		return 0, fmt.Errorf("a value nests more than %d levels deep, the limit (limits.hcl_max_depth)", maxDepth)
	}
	v, _ = v.Unmark()
	if !v.IsKnown() || v.IsNull() {
		return valueUnits, nil
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		return valueUnits + int64(len(v.AsString())), nil
	case ty == cty.Number:
		digits := numberDigits(v.AsBigFloat())
		if digits > maxNumberDigits {
			return 0, fmt.Errorf("a number has about %d digits, more than the %d a jobspec may compute with", digits, maxNumberDigits)
		}
		return valueUnits + digits, nil
	case !v.CanIterateElements():
		return valueUnits, nil
	}
	keyed := ty.IsMapType() || ty.IsObjectType()
	total := int64(valueUnits)
	for it := v.ElementIterator(); it.Next() && total <= limit; {
		key, elem := it.Element()
		if keyed {
			total += int64(len(key.AsString()))
		}
		c, err := valueCost(elem, depth+1, maxDepth, limit-total)
		if err != nil {
			return 0, err
		}
		total += c
	}
	return total, nil
}

// numberDigits estimates the decimal digits of f written out in full: the
// digits before the point come from its binary exponent, those after it
// from the precision its mantissa needs.
func numberDigits(f *big.Float) int64 {
	if f.IsInf() {
		return 1
	}
	exp := int64(f.MantExp(nil))
	if exp < 0 {
		exp = -exp
	}
	return (exp+int64(f.MinPrec()))*3/10 + 1
}

// wrap makes expr and its children charge b when evaluated, and returns
// the expression to evaluate in place of expr. It changes expr's children
// in place, so it runs after any static analysis of expr (Variables).
func (b *budget) wrap(expr hclsyntax.Expression) hclsyntax.Expression {
	if b == nil || expr == nil {
		return expr
	}
	switch expr.(type) {
	case *charged, *iteration:
		return expr // wrapped already
	}
	eachChild(expr, nil, func(slot *hclsyntax.Expression, _ map[string]bool) {
		*slot = b.wrap(*slot)
	})
	if e, ok := expr.(*hclsyntax.ForExpr); ok {
		for _, slot := range []*hclsyntax.Expression{&e.KeyExpr, &e.ValExpr, &e.CondExpr} {
			if *slot != nil {
				*slot = &iteration{Expression: *slot, b: b}
			}
		}
	}
	switch expr.(type) {
	case *hclsyntax.ScopeTraversalExpr, *hclsyntax.LiteralValueExpr,
		*hclsyntax.BinaryOpExpr, *hclsyntax.UnaryOpExpr:
		return &charged{Expression: expr, b: b}
	}
	return expr
}

// charged evaluates its expression and charges the size of the result.
// It embeds the expression, and with it the unexported methods that make
// it a node of hclsyntax's tree.
type charged struct {
	hclsyntax.Expression
	b *budget
}

func (c *charged) Value(ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	if c.b.failed() {
		return cty.DynamicVal, nil
	}
	val, diags := c.Expression.Value(ctx)
	if !c.b.chargeValue(val) {
		return cty.DynamicVal, diags
	}
	return val, diags
}

// iteration charges iterationUnits per evaluation: it wraps the parts of
// a for expression evaluated once per element.
type iteration struct {
	hclsyntax.Expression
	b *budget
}

func (it *iteration) Value(ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	if !it.b.charge(iterationUnits) {
		return cty.DynamicVal, nil
	}
	return it.Expression.Value(ctx)
}

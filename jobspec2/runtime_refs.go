package jobspec2

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// refKeeper rewrites parsed expressions so that references the parser cannot
// resolve survive as "${...}" text. Nomad jobspecs use such references for
// values only the scheduler (attr.*, node.*, meta.*) or the client (env,
// NOMAD_*) knows; they must reach the job unchanged.
//
// Inside a template ("...${x}..." or a heredoc) an interpolation that refers
// to any such name is kept whole, source text and all, so that
// "${attr.unique.network.ip-address}" stays as written even though HCL reads
// it as a subtraction. Elsewhere a bare reference such as
// `attribute = attr.kernel.name` becomes the string "${attr.kernel.name}".
type refKeeper struct {
	src   []byte
	known map[string]bool // root names evaluated at parse time
}

func newRefKeeper(src []byte, known ...string) *refKeeper {
	k := &refKeeper{src: src, known: make(map[string]bool, len(known))}
	for _, name := range known {
		k.known[name] = true
	}
	return k
}

// rewrite returns expr with runtime references replaced by literal strings.
// It modifies expr's children in place. bound holds names a for expression
// introduced around expr.
func (k *refKeeper) rewrite(expr hclsyntax.Expression, bound map[string]bool) hclsyntax.Expression {
	switch e := expr.(type) {
	case *hclsyntax.ScopeTraversalExpr:
		if k.isRuntime(e, bound) {
			return k.keep(e)
		}
		return e
	case *hclsyntax.TemplateWrapExpr:
		if k.interpolation(e.Wrapped) && k.refersToRuntime(e.Wrapped, bound) {
			return k.keep(e.Wrapped)
		}
	case *hclsyntax.TemplateExpr:
		for i, part := range e.Parts {
			if k.interpolation(part) && k.refersToRuntime(part, bound) {
				e.Parts[i] = k.keep(part)
			}
		}
	}
	eachChild(expr, bound, func(slot *hclsyntax.Expression, inner map[string]bool) {
		*slot = k.rewrite(*slot, inner)
	})
	return expr
}

// refersToRuntime reports whether expr mentions a name not known at parse
// time.
func (k *refKeeper) refersToRuntime(expr hclsyntax.Expression, bound map[string]bool) bool {
	if e, ok := expr.(*hclsyntax.ScopeTraversalExpr); ok {
		return k.isRuntime(e, bound)
	}
	found := false
	eachChild(expr, bound, func(slot *hclsyntax.Expression, inner map[string]bool) {
		if !found {
			found = k.refersToRuntime(*slot, inner)
		}
	})
	return found
}

func (k *refKeeper) isRuntime(e *hclsyntax.ScopeTraversalExpr, bound map[string]bool) bool {
	root := e.Traversal.RootName()
	return !k.known[root] && !bound[root]
}

// interpolation reports whether expr is the content of a "${ ... }"
// sequence, as opposed to a literal part or a %{ } directive.
func (k *refKeeper) interpolation(expr hclsyntax.Expression) bool {
	if _, literal := expr.(*hclsyntax.LiteralValueExpr); literal {
		return false
	}
	i := expr.Range().Start.Byte
	if i > len(k.src) {
		return false
	}
	for i > 0 {
		switch k.src[i-1] {
		case ' ', '\t', '\r', '\n', '~':
			i--
			continue
		}
		break
	}
	return i >= 2 && k.src[i-2] == '$' && k.src[i-1] == '{'
}

// keep turns expr into a literal "${<source of expr>}".
func (k *refKeeper) keep(expr hclsyntax.Expression) hclsyntax.Expression {
	rng := expr.Range()
	return &hclsyntax.LiteralValueExpr{
		Val:      cty.StringVal("${" + k.source(rng) + "}"),
		SrcRange: rng,
	}
}

// source returns the text rng covers. Ranges always come from parsing
// k.src, so the bounds check only guards against misuse.
func (k *refKeeper) source(rng hcl.Range) string {
	start, end := rng.Start.Byte, rng.End.Byte
	if start < 0 || start > end || end > len(k.src) {
		return ""
	}
	return string(k.src[start:end])
}

// eachChild calls fn with a pointer to every child expression of expr and
// the names bound where that child is evaluated.
func eachChild(expr hclsyntax.Expression, bound map[string]bool, fn func(*hclsyntax.Expression, map[string]bool)) {
	visit := func(slot *hclsyntax.Expression) {
		if *slot != nil {
			fn(slot, bound)
		}
	}
	switch e := expr.(type) {
	case *hclsyntax.TemplateExpr:
		for i := range e.Parts {
			visit(&e.Parts[i])
		}
	case *hclsyntax.TemplateWrapExpr:
		visit(&e.Wrapped)
	case *hclsyntax.TemplateJoinExpr:
		visit(&e.Tuple)
	case *hclsyntax.ParenthesesExpr:
		visit(&e.Expression)
	case *hclsyntax.RelativeTraversalExpr:
		visit(&e.Source)
	case *hclsyntax.FunctionCallExpr:
		for i := range e.Args {
			if i == 1 && e.Name == "convert" {
				// convert's second argument is a type, such as
				// list(string), that the function reads as syntax:
				// it refers to nothing and must stay as written.
				continue
			}
			visit(&e.Args[i])
		}
	case *hclsyntax.ConditionalExpr:
		visit(&e.Condition)
		visit(&e.TrueResult)
		visit(&e.FalseResult)
	case *hclsyntax.IndexExpr:
		visit(&e.Collection)
		visit(&e.Key)
	case *hclsyntax.TupleConsExpr:
		for i := range e.Exprs {
			visit(&e.Exprs[i])
		}
	case *hclsyntax.ObjectConsExpr:
		for i := range e.Items {
			visit(&e.Items[i].KeyExpr)
			visit(&e.Items[i].ValueExpr)
		}
	case *hclsyntax.ObjectConsKeyExpr:
		// A bare identifier key is a literal name, not a reference.
		if _, bare := e.Wrapped.(*hclsyntax.ScopeTraversalExpr); bare && !e.ForceNonLiteral {
			return
		}
		visit(&e.Wrapped)
	case *hclsyntax.ForExpr:
		visit(&e.CollExpr)
		inner := withNames(bound, e.KeyVar, e.ValVar)
		for _, slot := range []*hclsyntax.Expression{&e.KeyExpr, &e.ValExpr, &e.CondExpr} {
			if *slot != nil {
				fn(slot, inner)
			}
		}
	case *hclsyntax.SplatExpr:
		visit(&e.Source)
		visit(&e.Each)
	case *hclsyntax.BinaryOpExpr:
		visit(&e.LHS)
		visit(&e.RHS)
	case *hclsyntax.UnaryOpExpr:
		visit(&e.Val)
	}
}

func withNames(bound map[string]bool, names ...string) map[string]bool {
	out := make(map[string]bool, len(bound)+len(names))
	for name := range bound {
		out[name] = true
	}
	for _, name := range names {
		if name != "" {
			out[name] = true
		}
	}
	return out
}

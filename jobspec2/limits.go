package jobspec2

import (
	"bytes"
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// Limits bound what parsing one jobspec may cost, so that no jobspec, from
// a file or from an HTTP request, can exhaust the stack, the memory or a
// CPU of the process that parses it. A zero field takes its default.
type Limits struct {
	// MaxSize bounds each source, in bytes: the jobspec, each variable
	// file and the variable content sent with it.
	MaxSize int
	// MaxDepth bounds how deeply a source nests (see CheckNesting). HCL
	// parses and evaluates nesting by recursion, and Go ends a process
	// whose stack overflows; this is checked before the parser runs.
	MaxDepth int
	// MaxEvalWork bounds evaluation: one unit per byte of every string
	// and per list element, map entry, digit of a number and for-loop
	// iteration that expressions refer to, write literally or that
	// functions take and return.
	MaxEvalWork int64
	// EvalTimeout bounds the time evaluation may take.
	EvalTimeout time.Duration
}

// Default limits. A hand-written jobspec is a few kilobytes, nests
// perhaps a dozen levels and evaluates in microseconds; generated ones
// reach hundreds of kilobytes. These are far above both, and far below
// what hurts: a million bytes of source, a hundred levels of recursion
// (each costs the parser a few kilobytes of stack), ten million units of
// work (well under a second of one core) and ten seconds.
const (
	DefaultMaxSize     = 1 << 20
	DefaultMaxDepth    = 100
	DefaultMaxEvalWork = 16_000_000
	DefaultEvalTimeout = 10 * time.Second
)

// DefaultLimits are the limits the CLI parses with, and the agent's unless
// its limits block says otherwise.
func DefaultLimits() Limits {
	return Limits{
		MaxSize:     DefaultMaxSize,
		MaxDepth:    DefaultMaxDepth,
		MaxEvalWork: DefaultMaxEvalWork,
		EvalTimeout: DefaultEvalTimeout,
	}
}

// withDefaults fills the zero fields of l.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxSize <= 0 {
		l.MaxSize = d.MaxSize
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = d.MaxDepth
	}
	if l.MaxEvalWork <= 0 {
		l.MaxEvalWork = d.MaxEvalWork
	}
	if l.EvalTimeout <= 0 {
		l.EvalTimeout = d.EvalTimeout
	}
	return l
}

// checkSource is the guard every source passes before hclsyntax parses
// it: its size, then its nesting.
func (l Limits) checkSource(src []byte, filename string, mode SourceMode) hcl.Diagnostics {
	if len(src) > l.MaxSize {
		return hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Jobspec too large",
			Detail:   fmt.Sprintf("%s is %d bytes, more than the limit of %d bytes (limits.hcl_max_size).", filename, len(src), l.MaxSize),
			Subject:  &hcl.Range{Filename: filename, Start: hcl.InitialPos, End: hcl.InitialPos},
		}}
	}
	if err := CheckNesting(src, filename, mode, l.MaxDepth); err != nil {
		return hcl.Diagnostics{err}
	}
	return nil
}

// SourceMode says how a source is read: as a configuration file (a body
// of attributes and blocks) or as a lone expression.
type SourceMode int

const (
	ConfigSource SourceMode = iota
	ExpressionSource
)

// CheckNesting returns an error diagnostic when src nests deeper than
// maxDepth, and nil otherwise. It reads the tokens hclsyntax's own lexer
// makes of src, so that strings, heredocs, comments and template
// sequences count exactly as the parser sees them, and it counts every
// construct the parser or the evaluator handles by recursion:
//
//   - each open bracket, brace, parenthesis, string, heredoc, ${ and %{;
//   - each %{ if } or %{ for } directive until its %{ endif } or %{ endfor };
//   - each operator (unary, binary and the ? of a conditional), each index
//     or splat, since HCL nests a chain of them (a+b+c is (a+b)+c), until
//     the expression ends at a comma or at the line break that ends an
//     attribute.
//
// It never counts less than the parser recurses, and on real jobspecs
// not much more.
func CheckNesting(src []byte, filename string, mode SourceMode, maxDepth int) *hcl.Diagnostic {
	var tokens hclsyntax.Tokens
	if mode == ExpressionSource {
		tokens, _ = hclsyntax.LexExpression(src, filename, hcl.InitialPos)
	} else {
		tokens, _ = hclsyntax.LexConfig(src, filename, hcl.InitialPos)
	}
	n := newNesting(mode)
	for i := range tokens {
		tok := &tokens[i]
		if n.step(tok) > maxDepth {
			return &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Jobspec nested too deeply",
				Detail: fmt.Sprintf("Here the jobspec nests more than %d levels deep (brackets, braces, strings, templates and chained operators count), more than the limit of %d (limits.hcl_max_depth).",
					maxDepth, maxDepth),
				Subject: tok.Range.Ptr(),
			}
		}
	}
	return nil
}

// CheckJSONNesting is CheckNesting for JSON, as HCL's JSON parser reads
// it (configuration files ending in .json): arrays and objects count,
// brackets in strings do not.
func CheckJSONNesting(src []byte, filename string, maxDepth int) *hcl.Diagnostic {
	if jsonDepth(string(src), maxDepth) <= maxDepth {
		return nil
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "JSON nested too deeply",
		Detail:   fmt.Sprintf("%s nests more than %d levels deep, the limit.", filename, maxDepth),
		Subject:  &hcl.Range{Filename: filename, Start: hcl.InitialPos, End: hcl.InitialPos},
	}
}

// nestFrame is one open construct of the token stream.
type nestFrame struct {
	open hclsyntax.TokenType
	// lineEnds is set where a line break ends an expression: in a body
	// and in an object constructor, but not inside brackets,
	// parentheses, templates or a { for ... } expression.
	lineEnds bool
	// ops counts the operators, indexes and splats of the expression
	// under way in this frame; directives the open %{ if } and %{ for }
	// of a template.
	ops, directives int
	// fresh is set until the frame's first token.
	fresh bool
}

// nesting tracks the depth of a token stream.
type nesting struct {
	frames []nestFrame
	// depth is the sum over frames of 1 + ops + directives.
	depth int
}

func newNesting(mode SourceMode) *nesting {
	return &nesting{frames: []nestFrame{{lineEnds: mode == ConfigSource}}}
}

func (n *nesting) top() *nestFrame { return &n.frames[len(n.frames)-1] }

// step accounts for one token and returns the depth after it.
func (n *nesting) step(tok *hclsyntax.Token) int {
	f := n.top()
	fresh := f.fresh
	f.fresh = false
	switch tok.Type {
	case hclsyntax.TokenOBrace, hclsyntax.TokenOParen, hclsyntax.TokenOQuote, hclsyntax.TokenOHeredoc,
		hclsyntax.TokenTemplateInterp, hclsyntax.TokenTemplateControl:
		n.push(tok.Type, tok.Type == hclsyntax.TokenOBrace)
	case hclsyntax.TokenOBrack:
		n.addOps(1) // an index, or a tuple that may be indexed
		n.push(tok.Type, false)
	case hclsyntax.TokenCBrace, hclsyntax.TokenCBrack, hclsyntax.TokenCParen, hclsyntax.TokenCQuote,
		hclsyntax.TokenCHeredoc, hclsyntax.TokenTemplateSeqEnd:
		n.pop()
	case hclsyntax.TokenComma:
		n.resetOps()
	case hclsyntax.TokenNewline:
		if f.lineEnds {
			n.resetOps()
		}
		f.fresh = fresh // "{", line breaks, then "for" is a for expression
	case hclsyntax.TokenComment:
		// A # or // comment takes the line break that ends it, and the
		// parser reads it as that line break.
		if f.lineEnds && bytes.HasSuffix(tok.Bytes, []byte("\n")) {
			n.resetOps()
		}
		f.fresh = fresh
	case hclsyntax.TokenIdent:
		n.ident(f, fresh, string(tok.Bytes))
	case hclsyntax.TokenPlus, hclsyntax.TokenMinus, hclsyntax.TokenStar, hclsyntax.TokenSlash,
		hclsyntax.TokenPercent, hclsyntax.TokenEqualOp, hclsyntax.TokenNotEqual,
		hclsyntax.TokenLessThan, hclsyntax.TokenLessThanEq, hclsyntax.TokenGreaterThan,
		hclsyntax.TokenGreaterThanEq, hclsyntax.TokenAnd, hclsyntax.TokenOr, hclsyntax.TokenBang,
		hclsyntax.TokenQuestion:
		n.addOps(1)
	}
	return n.depth
}

// ident handles the keywords that change nesting: "for" right after an
// opening brace makes a for expression, in which line breaks do not end
// anything; if, for, endif and endfor right after %{ open and close a
// template directive.
func (n *nesting) ident(f *nestFrame, fresh bool, word string) {
	if !fresh {
		return
	}
	switch f.open {
	case hclsyntax.TokenOBrace:
		if word == "for" {
			f.lineEnds = false
		}
	case hclsyntax.TokenTemplateControl:
		if len(n.frames) < 2 {
			return
		}
		tmpl := &n.frames[len(n.frames)-2]
		switch word {
		case "if", "for":
			tmpl.directives++
			n.depth++
		case "endif", "endfor":
			if tmpl.directives > 0 {
				tmpl.directives--
				n.depth--
			}
		}
	}
}

func (n *nesting) push(open hclsyntax.TokenType, lineEnds bool) {
	n.frames = append(n.frames, nestFrame{open: open, lineEnds: lineEnds, fresh: true})
	n.depth++
}

// pop closes the innermost frame; a closer with nothing open is the
// parser's error to report.
func (n *nesting) pop() {
	if len(n.frames) == 1 {
		n.resetOps()
		return
	}
	f := n.top()
	n.depth -= 1 + f.ops + f.directives
	n.frames = n.frames[:len(n.frames)-1]
}

func (n *nesting) addOps(k int) {
	n.top().ops += k
	n.depth += k
}

func (n *nesting) resetOps() {
	f := n.top()
	n.depth -= f.ops
	f.ops = 0
}

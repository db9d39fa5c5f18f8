package jobspec2

import (
	"bytes"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// HCL wants every argument and nested block of a block on a line of its
// own; only a block with a single argument may be written on one line. The
// compact form
//
//	task "t" { driver = "raw_exec" config { command = "/bin/sleep" args = ["1s"] } }
//
// is what people write in examples, so when the strict parse fails the
// parser retries with line breaks put where HCL wants them. Breaks replace
// the space before an item, so byte offsets do not move and positions can
// be mapped back to the text the user wrote.

// layoutFix is a jobspec with line breaks added, and the way back to the
// positions of the original text.
type layoutFix struct {
	src    []byte
	breaks []lineBreak // sorted by byte offset
}

// lineBreak is a space or tab replaced by a newline, with its position in
// the original text.
type lineBreak struct {
	byte, line, column int
}

// frame is one level of nesting the relayout tracks: a block body, where
// items need lines of their own, or a group (brackets, quotes, templates,
// object constructors), whose content it leaves alone.
type frame struct {
	block        bool
	state        itemState
	lineHasItem  bool // something in this block already sits on the current line
	justOpened   bool // the previous token was this block's "{"
	operandEnded bool // in an argument's value, the last token ended an operand
}

type itemState int

const (
	itemStart  itemState = iota // at the start of a line
	itemHeader                  // after an item's name: labels, "=" or "{" follow
	itemValue                   // in an argument's value
	itemDone                    // after a nested block's "}"
)

// relaxLayout returns src with the needed line breaks, or nil when it sees
// no way to add them.
func relaxLayout(src []byte, filename string) *layoutFix {
	tokens, diags := hclsyntax.LexConfig(src, filename, hcl.InitialPos)
	if diags.HasErrors() {
		return nil
	}
	out := bytes.Clone(src)
	fix := &layoutFix{src: out}
	breakBefore := func(tok hclsyntax.Token) bool {
		i := tok.Range.Start.Byte - 1
		if i < 0 || i >= len(out) || (out[i] != ' ' && out[i] != '\t') {
			return false
		}
		out[i] = '\n'
		fix.breaks = append(fix.breaks, lineBreak{byte: i, line: tok.Range.Start.Line, column: tok.Range.Start.Column - 1})
		return true
	}

	stack := []*frame{{block: true}}
	for _, tok := range tokens {
		top := stack[len(stack)-1]
		if !top.block {
			switch {
			case opensGroup(tok.Type):
				stack = append(stack, &frame{})
			case closesGroup(tok.Type):
				stack = stack[:len(stack)-1]
				if parent := stack[len(stack)-1]; parent.block {
					parent.operandEnded = true
				}
			}
			continue
		}

		switch tok.Type {
		case hclsyntax.TokenNewline:
			top.state, top.lineHasItem, top.justOpened = itemStart, false, false
			continue
		case hclsyntax.TokenComment:
			if bytes.HasSuffix(tok.Bytes, []byte("\n")) {
				top.state, top.lineHasItem, top.justOpened = itemStart, false, false
			}
			continue
		case hclsyntax.TokenEOF:
			continue
		case hclsyntax.TokenCBrace:
			if len(stack) == 1 {
				return nil // unbalanced; let the strict errors stand
			}
			if top.lineHasItem && !top.justOpened && !breakBefore(tok) {
				return nil
			}
			stack = stack[:len(stack)-1]
			stack[len(stack)-1].state = itemDone
			continue
		}
		top.justOpened = false

		switch top.state {
		case itemStart, itemDone:
			if tok.Type != hclsyntax.TokenIdent {
				return nil
			}
			if (top.lineHasItem || top.state == itemDone) && !breakBefore(tok) {
				return nil
			}
			top.state, top.lineHasItem = itemHeader, true
		case itemHeader:
			switch tok.Type {
			case hclsyntax.TokenEqual:
				top.state, top.operandEnded = itemValue, false
			case hclsyntax.TokenOBrace:
				stack = append(stack, &frame{block: true, lineHasItem: true, justOpened: true})
			case hclsyntax.TokenOQuote:
				stack = append(stack, &frame{})
			}
		case itemValue:
			if top.operandEnded && startsOperand(tok.Type) {
				if tok.Type != hclsyntax.TokenIdent || !breakBefore(tok) {
					return nil
				}
				top.state = itemHeader
				continue
			}
			top.operandEnded = tok.Type == hclsyntax.TokenIdent || tok.Type == hclsyntax.TokenNumberLit
			if opensGroup(tok.Type) {
				stack = append(stack, &frame{})
			}
		}
	}
	if len(fix.breaks) == 0 {
		return nil
	}
	return fix
}

func opensGroup(t hclsyntax.TokenType) bool {
	switch t {
	case hclsyntax.TokenOBrace, hclsyntax.TokenOBrack, hclsyntax.TokenOParen,
		hclsyntax.TokenOQuote, hclsyntax.TokenOHeredoc,
		hclsyntax.TokenTemplateInterp, hclsyntax.TokenTemplateControl:
		return true
	}
	return false
}

func closesGroup(t hclsyntax.TokenType) bool {
	switch t {
	case hclsyntax.TokenCBrace, hclsyntax.TokenCBrack, hclsyntax.TokenCParen,
		hclsyntax.TokenCQuote, hclsyntax.TokenCHeredoc, hclsyntax.TokenTemplateSeqEnd:
		return true
	}
	return false
}

func startsOperand(t hclsyntax.TokenType) bool {
	switch t {
	case hclsyntax.TokenIdent, hclsyntax.TokenOQuote, hclsyntax.TokenOHeredoc, hclsyntax.TokenNumberLit:
		return true
	}
	return false
}

// pos maps a position in the relaid text back to the original text.
func (f *layoutFix) pos(p hcl.Pos) hcl.Pos {
	if f == nil {
		return p
	}
	n := sort.Search(len(f.breaks), func(i int) bool { return f.breaks[i].byte >= p.Byte })
	if n == 0 {
		return p
	}
	last := f.breaks[n-1]
	out := hcl.Pos{Byte: p.Byte, Line: p.Line - n, Column: p.Column}
	if last.line == out.Line {
		out.Column = last.column + p.Column
	}
	return out
}

// rng maps a range of file in the relaid text back to the original text.
func (f *layoutFix) rng(r hcl.Range) hcl.Range {
	if f == nil {
		return r
	}
	return hcl.Range{Filename: r.Filename, Start: f.pos(r.Start), End: f.pos(r.End)}
}

// restore maps the ranges of diagnostics about file back to the original
// text.
func (f *layoutFix) restore(diags hcl.Diagnostics, file string) {
	if f == nil {
		return
	}
	// Ranges are replaced, not changed in place: diagnostics share
	// pointers into the syntax tree.
	restore := func(r *hcl.Range) *hcl.Range {
		if r == nil || r.Filename != file {
			return r
		}
		return f.rng(*r).Ptr()
	}
	for _, d := range diags {
		d.Subject = restore(d.Subject)
		d.Context = restore(d.Context)
	}
}

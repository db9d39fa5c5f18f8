package template

import (
	"fmt"
	"slices"
	"strings"
	"text/template/parse"
)

// Why a function a template calls cannot run here.
const (
	needsConsul = "consul"
	needsVault  = "vault"
)

// serverFuncs are consul-template's functions that read a Consul or Vault
// server, by the agent block that would point at one.
var serverFuncs = map[string]string{
	"key": needsConsul, "keyExists": needsConsul, "keyOrDefault": needsConsul,
	"ls": needsConsul, "safeLs": needsConsul, "tree": needsConsul, "safeTree": needsConsul,
	"service": needsConsul, "services": needsConsul, "connect": needsConsul,
	"caRoots": needsConsul, "caLeaf": needsConsul, "datacenters": needsConsul,
	"node": needsConsul, "nodes": needsConsul, "exportedServices": needsConsul,
	"partitions": needsConsul, "peerings": needsConsul, "byTag": needsConsul, "byMeta": needsConsul,
	"secret": needsVault, "secrets": needsVault, "pkiCert": needsVault,
}

// refusedFuncs are functions of consul-template that Drover does not
// offer, with why.
var refusedFuncs = map[string]string{
	"plugin":      "it runs a program of the client's host (Nomad's default function_denylist refuses it too)",
	"writeToFile": "it writes a file of the client's host (Nomad's default function_denylist refuses it too)",
}

// FuncError is a function a template calls that cannot run here.
type FuncError struct {
	Func string
	// Block is the agent block the function needs ("consul", "vault"),
	// or empty when no block would make it available.
	Block  string
	Reason string
}

func (e *FuncError) Error() string {
	if e.Block != "" {
		return fmt.Sprintf("function %q needs a %s server, and Drover's agent has no %q block to name one", e.Func, strings.ToUpper(e.Block[:1])+e.Block[1:], e.Block)
	}
	return fmt.Sprintf("function %q is not available: %s", e.Func, e.Reason)
}

// Check parses a template's text with its delimiters and reports the first
// problem: a syntax error, or a function that does not exist or cannot run
// here (a *FuncError), in the order the template calls them.
func Check(text, left, right string) error {
	trees, err := parseTrees(text, left, right)
	if err != nil {
		return err
	}
	for _, name := range calledFuncs(trees) {
		if err := funcProblem(name); err != nil {
			return err
		}
	}
	return nil
}

// funcProblem says why the named function cannot be called, or nil.
func funcProblem(name string) error {
	if block, ok := serverFuncs[name]; ok {
		return &FuncError{Func: name, Block: block}
	}
	if why, ok := refusedFuncs[name]; ok {
		return &FuncError{Func: name, Reason: why}
	}
	if _, ok := funcNames[name]; ok || builtins[name] {
		return nil
	}
	return &FuncError{Func: name, Reason: "no such function in Nomad's template language"}
}

// builtins are text/template's own functions.
var builtins = map[string]bool{
	"and": true, "call": true, "html": true, "index": true, "slice": true, "js": true,
	"len": true, "not": true, "or": true, "print": true, "printf": true, "println": true,
	"urlquery": true, "eq": true, "ge": true, "gt": true, "le": true, "lt": true, "ne": true,
}

// parseTrees parses text without resolving its functions: the template
// itself first, then those it defines, by name.
func parseTrees(text, left, right string) ([]*parse.Tree, error) {
	tree := parse.New("template")
	tree.Mode = parse.SkipFuncCheck
	set := map[string]*parse.Tree{}
	if _, err := tree.Parse(text, left, right, set); err != nil {
		return nil, err
	}
	out := []*parse.Tree{tree}
	names := make([]string, 0, len(set))
	for name := range set {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if set[name] != tree {
			out = append(out, set[name])
		}
	}
	return out, nil
}

// calledFuncs lists the functions parsed templates call, each once, in
// the order they first appear.
func calledFuncs(trees []*parse.Tree) []string {
	var out []string
	var walk func(parse.Node)
	walk = func(n parse.Node) {
		switch n := n.(type) {
		case *parse.ListNode:
			if n != nil {
				for _, c := range n.Nodes {
					walk(c)
				}
			}
		case *parse.ActionNode:
			walk(n.Pipe)
		case *parse.PipeNode:
			if n != nil {
				for _, c := range n.Cmds {
					walk(c)
				}
			}
		case *parse.CommandNode:
			for _, a := range n.Args {
				walk(a)
			}
		case *parse.IdentifierNode:
			if !slices.Contains(out, n.Ident) {
				out = append(out, n.Ident)
			}
		case *parse.ChainNode:
			walk(n.Node)
		case *parse.IfNode:
			walkBranch(&n.BranchNode, walk)
		case *parse.RangeNode:
			walkBranch(&n.BranchNode, walk)
		case *parse.WithNode:
			walkBranch(&n.BranchNode, walk)
		case *parse.TemplateNode:
			walk(n.Pipe)
		}
	}
	for _, tree := range trees {
		if tree.Root != nil {
			walk(tree.Root)
		}
	}
	return out
}

func walkBranch(b *parse.BranchNode, walk func(parse.Node)) {
	walk(b.Pipe)
	walk(b.List)
	if b.ElseList != nil {
		walk(b.ElseList)
	}
}

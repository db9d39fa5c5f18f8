package acl

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclparse"
)

// MaxRulesBytes bounds the text of one policy: far above any real policy,
// far below what could make parsing hurt.
const MaxRulesBytes = 64 << 10

// Policy is a parsed policy: its rules, each rule's policy disposition
// expanded into the capabilities it stands for.
type Policy struct {
	Namespaces  []*Rule
	HostVolumes []*Rule
	NodePools   []*Rule
	// Operator's capabilities hold its disposition's expansion too.
	Operator *Rule

	// The dispositions of the rules that have no capabilities; "" when the
	// policy has no such rule.
	Agent  string
	Node   string
	Quota  string
	Plugin string
}

// Rule is one rule of a policy: the namespace, host volume or node pool
// pattern it applies to (empty for the operator rule), its disposition,
// and every capability it grants, sorted.
type Rule struct {
	Name         string
	Policy       string
	Capabilities []string
	// Variables are a namespace rule's variables path rules, its
	// disposition's included.
	Variables []*Rule `json:",omitempty"`
}

// The file* types mirror the policy language. gohcl rejects any block or
// attribute not listed, naming it and where it is.
type filePolicy struct {
	Namespaces  []*fileNamespace `hcl:"namespace,block"`
	HostVolumes []*fileLabeled   `hcl:"host_volume,block"`
	NodePools   []*fileLabeled   `hcl:"node_pool,block"`
	Agent       *fileRule        `hcl:"agent,block"`
	Node        *fileRule        `hcl:"node,block"`
	Operator    *fileOperator    `hcl:"operator,block"`
	Quota       *fileRule        `hcl:"quota,block"`
	Plugin      *fileRule        `hcl:"plugin,block"`
}

type fileNamespace struct {
	Name         string         `hcl:"name,label"`
	Policy       string         `hcl:"policy,optional"`
	Capabilities []string       `hcl:"capabilities,optional"`
	Variables    *fileVariables `hcl:"variables,block"`
}

type fileVariables struct {
	Paths []*fileVariablesPath `hcl:"path,block"`
}

type fileVariablesPath struct {
	Path         string   `hcl:"path,label"`
	Capabilities []string `hcl:"capabilities,optional"`
}

type fileLabeled struct {
	Name         string   `hcl:"name,label"`
	Policy       string   `hcl:"policy,optional"`
	Capabilities []string `hcl:"capabilities,optional"`
}

type fileRule struct {
	Policy string `hcl:"policy,optional"`
}

type fileOperator struct {
	Policy       string   `hcl:"policy,optional"`
	Capabilities []string `hcl:"capabilities,optional"`
}

// Names a rule may apply to: letters, digits, dashes, and * as a
// wildcard; host volumes and node pools also allow underscores. They are
// compiled on first use: a bounded repetition compiles to a large program,
// and every process of the binary (each raw_exec task supervisor too)
// would otherwise build and keep it at start-up.
var (
	validNamespacePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9*-]{1,128}$`) })
	validVolumePattern    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_*-]{1,128}$`) })
)

// Parse reads a policy written in the policy language, as HCL or, when it
// starts with "{", as JSON. Every problem is an error that names the rule
// and what is wrong with it.
func Parse(rules string) (*Policy, error) {
	if strings.TrimSpace(rules) == "" {
		return nil, errors.New("policy has no rules")
	}
	if len(rules) > MaxRulesBytes {
		return nil, fmt.Errorf("policy rules are %d bytes; the limit is %d", len(rules), MaxRulesBytes)
	}
	fp, err := decodeRules(rules)
	if err != nil {
		return nil, err
	}
	return fp.compile()
}

func decodeRules(rules string) (*filePolicy, error) {
	parser := hclparse.NewParser()
	var file *hcl.File
	var diags hcl.Diagnostics
	if strings.HasPrefix(strings.TrimSpace(rules), "{") {
		file, diags = parser.ParseJSON([]byte(rules), "policy.json")
	} else {
		file, diags = parser.ParseHCL([]byte(rules), "policy.hcl")
	}
	if diags.HasErrors() {
		return nil, fmt.Errorf("parse policy: %w", diags)
	}
	var fp filePolicy
	if diags := gohcl.DecodeBody(file.Body, nil, &fp); diags.HasErrors() {
		return nil, fmt.Errorf("parse policy: %w", diags)
	}
	return &fp, nil
}

func (fp *filePolicy) compile() (*Policy, error) {
	p := &Policy{}
	var errs []error
	for _, ns := range fp.Namespaces {
		rule, err := ns.compile()
		errs = append(errs, err)
		p.Namespaces = append(p.Namespaces, rule)
	}
	for _, hv := range fp.HostVolumes {
		rule, err := hv.compile("host_volume", hostVolumeCapabilities, hostVolumePolicyCapabilities)
		errs = append(errs, err)
		p.HostVolumes = append(p.HostVolumes, rule)
	}
	for _, np := range fp.NodePools {
		rule, err := np.compile("node_pool", nodePoolCapabilities, nodePoolPolicyCapabilities)
		errs = append(errs, err)
		p.NodePools = append(p.NodePools, rule)
	}
	var err error
	p.Agent, err = fp.Agent.disposition("agent", PolicyDeny, PolicyRead, PolicyWrite)
	errs = append(errs, err)
	p.Node, err = fp.Node.disposition("node", PolicyDeny, PolicyRead, PolicyWrite)
	errs = append(errs, err)
	p.Quota, err = fp.Quota.disposition("quota", PolicyDeny, PolicyRead, PolicyWrite)
	errs = append(errs, err)
	p.Plugin, err = fp.Plugin.disposition("plugin", PolicyDeny, PolicyRead, PolicyList, PolicyWrite)
	errs = append(errs, err)
	p.Operator, err = fp.Operator.compile()
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if p.empty() {
		return nil, errors.New("policy has no rules")
	}
	return p, nil
}

func (p *Policy) empty() bool {
	return len(p.Namespaces) == 0 && len(p.HostVolumes) == 0 && len(p.NodePools) == 0 &&
		p.Operator == nil && p.Agent == "" && p.Node == "" && p.Quota == "" && p.Plugin == ""
}

func (ns *fileNamespace) compile() (*Rule, error) {
	what := fmt.Sprintf("namespace %q", ns.Name)
	if !validNamespacePattern().MatchString(ns.Name) {
		return nil, fmt.Errorf("%s: a namespace rule's name is 1 to 128 letters, digits, dashes and * wildcards", what)
	}
	if err := checkDisposition(what, ns.Policy, true, PolicyDeny, PolicyRead, PolicyWrite, PolicyScale); err != nil {
		return nil, err
	}
	if err := checkCapabilities(what, ns.Capabilities, namespaceCapabilities); err != nil {
		return nil, err
	}
	vars, err := ns.Variables.compile(what)
	if err != nil {
		return nil, err
	}
	caps := slices.Concat(ns.Capabilities, namespacePolicyCapabilities(ns.Policy))
	for _, c := range slices.Clone(caps) {
		caps = append(caps, impliedCapabilities[c]...)
	}
	if expanded := variablesPolicyCapabilities(ns.Policy); expanded != nil {
		vars = append(vars, &Rule{Name: "*", Policy: ns.Policy, Capabilities: expanded})
	}
	return &Rule{Name: ns.Name, Policy: ns.Policy, Capabilities: sortedSet(caps), Variables: vars}, nil
}

// compile checks a variables block and returns its path rules, each
// capability with those it implies.
func (v *fileVariables) compile(what string) ([]*Rule, error) {
	if v == nil {
		return nil, nil
	}
	if len(v.Paths) == 0 {
		return nil, fmt.Errorf("%s: variables block has no path blocks", what)
	}
	rules := make([]*Rule, 0, len(v.Paths))
	for _, p := range v.Paths {
		if p.Path == "" || strings.HasPrefix(p.Path, "/") {
			return nil, fmt.Errorf("%s: variables path %q must be non-empty and must not start with /", what, p.Path)
		}
		if err := checkCapabilities(fmt.Sprintf("%s: variables path %q", what, p.Path), p.Capabilities, variablesCapabilities); err != nil {
			return nil, err
		}
		caps := slices.Clone(p.Capabilities)
		for _, c := range p.Capabilities {
			caps = append(caps, impliedVariablesCapabilities[c]...)
		}
		rules = append(rules, &Rule{Name: p.Path, Capabilities: sortedSet(caps)})
	}
	return rules, nil
}

func (l *fileLabeled) compile(kind string, valid []string, expand func(string) []string) (*Rule, error) {
	what := fmt.Sprintf("%s %q", kind, l.Name)
	if !validVolumePattern().MatchString(l.Name) {
		return nil, fmt.Errorf("%s: the name is 1 to 128 letters, digits, dashes, underscores and * wildcards", what)
	}
	if err := checkDisposition(what, l.Policy, true, PolicyDeny, PolicyRead, PolicyWrite); err != nil {
		return nil, err
	}
	if err := checkCapabilities(what, l.Capabilities, valid); err != nil {
		return nil, err
	}
	caps := slices.Concat(l.Capabilities, expand(l.Policy))
	return &Rule{Name: l.Name, Policy: l.Policy, Capabilities: sortedSet(caps)}, nil
}

// disposition checks a rule that has only a policy field; a rule that is
// not there is "".
func (r *fileRule) disposition(kind string, allowed ...string) (string, error) {
	if r == nil {
		return "", nil
	}
	return r.Policy, checkDisposition(kind+" rule", r.Policy, false, allowed...)
}

func (o *fileOperator) compile() (*Rule, error) {
	if o == nil {
		return nil, nil
	}
	if err := checkDisposition("operator rule", o.Policy, len(o.Capabilities) > 0, PolicyDeny, PolicyRead, PolicyWrite); err != nil {
		return nil, err
	}
	if err := checkCapabilities("operator rule", o.Capabilities, operatorCapabilities); err != nil {
		return nil, err
	}
	caps := slices.Concat(o.Capabilities, operatorPolicyCapabilities(o.Policy))
	return &Rule{Policy: o.Policy, Capabilities: sortedSet(caps)}, nil
}

func checkDisposition(what, policy string, optional bool, allowed ...string) error {
	if policy == "" && optional {
		return nil
	}
	if slices.Contains(allowed, policy) {
		return nil
	}
	return fmt.Errorf("%s: policy %q is not one of %s", what, policy, strings.Join(quoted(allowed), ", "))
}

func checkCapabilities(what string, caps, valid []string) error {
	var unknown []string
	for _, c := range caps {
		if !slices.Contains(valid, c) {
			unknown = append(unknown, c)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	noun := "capability"
	if len(unknown) > 1 {
		noun = "capabilities"
	}
	return fmt.Errorf("%s: unknown %s %s (known: %s)", what, noun, strings.Join(quoted(unknown), ", "), strings.Join(valid, ", "))
}

func quoted(values []string) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = fmt.Sprintf("%q", v)
	}
	return out
}

// sortedSet returns the distinct values, sorted.
func sortedSet(values []string) []string {
	out := slices.Clone(values)
	slices.Sort(out)
	return slices.Compact(out)
}

package acl

import (
	"slices"
	"strings"
)

// AllNamespaces, as the namespace of a check, asks whether the operation
// is allowed in at least one namespace: what a list across every
// namespace needs before it is filtered item by item.
const AllNamespaces = "*"

// ACL is what a token may do: the merge of its policies. It is immutable
// and safe for concurrent use. A nil *ACL allows nothing.
type ACL struct {
	management bool
	// workload, for a workload identity, is the one allocation it may
	// read (see workload.go); such an ACL has no rules.
	workload *Workload

	namespaces ruleSet
	// variables holds the variables path rules of each namespace rule,
	// by the rule's name (a namespace or a pattern).
	variables   map[string]*ruleSet
	hostVolumes ruleSet
	nodePools   ruleSet
	operator    capSet

	// dispositions holds the merged disposition of each rule that has
	// one, indexed by rule (ruleNode, ...).
	dispositions [ruleCount]string
}

var management = &ACL{management: true}

// Management is the ACL of a management token: it allows everything. An
// agent with ACLs disabled checks every request against it.
func Management() *ACL { return management }

// New merges policies into one ACL. Within a namespace (or host volume,
// or node pool) the capabilities of every rule naming it add up, unless
// one of them denies, which removes them all. A name without a rule of its
// own takes the rule of the closest wildcard pattern that matches it: the
// one whose wildcards stand for the fewest characters. For node, agent,
// operator, quota and plugin the highest disposition wins, and deny beats
// them all. New() with no policy allows nothing.
func New(policies ...*Policy) *ACL {
	a := &ACL{}
	for _, p := range policies {
		if p == nil {
			continue
		}
		for _, r := range p.Namespaces {
			a.namespaces.add(r.Name, r.Capabilities)
			a.addVariables(r.Name, r.Variables)
		}
		for _, r := range p.HostVolumes {
			a.hostVolumes.add(r.Name, r.Capabilities)
		}
		for _, r := range p.NodePools {
			a.nodePools.add(r.Name, r.Capabilities)
		}
		if p.Operator != nil {
			a.operator = a.operator.merge(p.Operator.Capabilities)
			a.mergeRule(ruleOperator, p.Operator.Policy)
		}
		a.mergeRule(ruleNode, p.Node)
		a.mergeRule(ruleAgent, p.Agent)
		a.mergeRule(ruleQuota, p.Quota)
		a.mergeRule(rulePlugin, p.Plugin)
	}
	a.namespaces.sortGlobs()
	for _, rs := range a.variables {
		rs.sortGlobs()
	}
	a.hostVolumes.sortGlobs()
	a.nodePools.sortGlobs()
	return a
}

// IsManagement reports whether a is a management token's ACL.
func (a *ACL) IsManagement() bool { return a != nil && a.management }

// AllowNamespaceOperation reports whether capability is granted in
// namespace. For AllNamespaces it reports whether some rule grants it.
func (a *ACL) AllowNamespaceOperation(namespace, capability string) bool {
	switch {
	case a == nil:
		return false
	case a.management:
		return true
	case namespace == AllNamespaces:
		return a.namespaces.anyGrants(capability)
	}
	return a.namespaces.match(namespace).allows(capability)
}

// AllowNamespaceAny reports whether any of the capabilities is granted in
// namespace (see AllowNamespaceOperation).
func (a *ACL) AllowNamespaceAny(namespace string, capabilities ...string) bool {
	return slices.ContainsFunc(capabilities, func(c string) bool { return a.AllowNamespaceOperation(namespace, c) })
}

// AllowNamespace reports whether a grants anything at all in namespace:
// what reading the namespace itself needs.
func (a *ACL) AllowNamespace(namespace string) bool {
	switch {
	case a == nil:
		return false
	case a.management:
		return true
	}
	caps := a.namespaces.match(namespace)
	return len(caps) > 0 && !caps.denies()
}

// AllowHostVolumeOperation reports whether capability is granted on the
// named host volume.
func (a *ACL) AllowHostVolumeOperation(volume, capability string) bool {
	if a == nil {
		return false
	}
	return a.management || a.hostVolumes.match(volume).allows(capability)
}

// AllowNodePoolOperation reports whether capability is granted on the
// named node pool.
func (a *ACL) AllowNodePoolOperation(pool, capability string) bool {
	if a == nil {
		return false
	}
	return a.management || a.nodePools.match(pool).allows(capability)
}

// AllowNodeRead and the other Allow*Read, Allow*Write and Allow*List
// methods check the disposition of the node, agent, operator, quota and
// plugin rules. For plugins, list is the least disposition, below read.
func (a *ACL) AllowNodeRead() bool      { return a.allowRule(ruleNode, PolicyRead) }
func (a *ACL) AllowNodeWrite() bool     { return a.allowRule(ruleNode, PolicyWrite) }
func (a *ACL) AllowAgentRead() bool     { return a.allowRule(ruleAgent, PolicyRead) }
func (a *ACL) AllowAgentWrite() bool    { return a.allowRule(ruleAgent, PolicyWrite) }
func (a *ACL) AllowOperatorRead() bool  { return a.allowRule(ruleOperator, PolicyRead) }
func (a *ACL) AllowOperatorWrite() bool { return a.allowRule(ruleOperator, PolicyWrite) }
func (a *ACL) AllowQuotaRead() bool     { return a.allowRule(ruleQuota, PolicyRead) }
func (a *ACL) AllowQuotaWrite() bool    { return a.allowRule(ruleQuota, PolicyWrite) }
func (a *ACL) AllowPluginRead() bool    { return a.allowRule(rulePlugin, PolicyRead) }
func (a *ACL) AllowPluginList() bool    { return a.allowRule(rulePlugin, PolicyList) }

// AllowOperatorCapability reports whether the operator rule grants
// capability (snapshot-save, license-read).
func (a *ACL) AllowOperatorCapability(capability string) bool {
	if a == nil {
		return false
	}
	return a.management || a.operator.allows(capability)
}

// The rules that have a disposition and no capabilities, as keys of
// ACL.dispositions.
const (
	ruleNode = iota
	ruleAgent
	ruleOperator
	ruleQuota
	rulePlugin
	ruleCount
)

func (a *ACL) allowRule(rule int, least string) bool {
	if a == nil {
		return false
	}
	if a.management {
		return true
	}
	have := a.dispositions[rule]
	return have != PolicyDeny && dispositionRank[have] >= dispositionRank[least]
}

// dispositionRank orders the dispositions other than deny.
var dispositionRank = map[string]int{"": 0, PolicyList: 1, PolicyRead: 2, PolicyScale: 2, PolicyWrite: 3}

// mergeRule merges a policy's disposition for rule into a's: deny wins,
// else the higher.
func (a *ACL) mergeRule(rule int, disposition string) {
	have := a.dispositions[rule]
	switch {
	case have == PolicyDeny:
	case disposition == PolicyDeny || dispositionRank[disposition] > dispositionRank[have]:
		a.dispositions[rule] = disposition
	}
}

// capSet is the capabilities granted on one name. A set holding deny
// holds nothing else.
type capSet map[string]struct{}

func (c capSet) allows(capability string) bool {
	if c.denies() {
		return false
	}
	_, ok := c[capability]
	return ok
}

func (c capSet) denies() bool {
	_, ok := c[CapDeny]
	return ok
}

// merge adds caps to c, or makes c deny, and returns it.
func (c capSet) merge(caps []string) capSet {
	if c == nil {
		c = capSet{}
	}
	if c.denies() {
		return c
	}
	if slices.Contains(caps, CapDeny) {
		clear(c)
		c[CapDeny] = struct{}{}
		return c
	}
	for _, cap := range caps {
		c[cap] = struct{}{}
	}
	return c
}

// ruleSet holds the rules for one kind of name: those for a name, and
// those for a wildcard pattern.
type ruleSet struct {
	exact map[string]capSet
	globs []globRule
}

type globRule struct {
	pattern string
	// literal is the pattern's length without its wildcards.
	literal int
	caps    capSet
}

func (rs *ruleSet) add(name string, caps []string) {
	if !strings.Contains(name, "*") {
		if rs.exact == nil {
			rs.exact = map[string]capSet{}
		}
		rs.exact[name] = rs.exact[name].merge(caps)
		return
	}
	for i := range rs.globs {
		if rs.globs[i].pattern == name {
			rs.globs[i].caps = rs.globs[i].caps.merge(caps)
			return
		}
	}
	rs.globs = append(rs.globs, globRule{
		pattern: name,
		literal: len(name) - strings.Count(name, "*"),
		caps:    capSet(nil).merge(caps),
	})
}

func (rs *ruleSet) sortGlobs() {
	slices.SortFunc(rs.globs, func(a, b globRule) int { return strings.Compare(a.pattern, b.pattern) })
}

// match returns the capabilities of name: those of its own rule, else
// those of the closest pattern that matches it (ties go to the pattern
// that sorts first), else none.
func (rs *ruleSet) match(name string) capSet {
	_, caps := rs.matchRule(name)
	return caps
}

// matchRule returns the name or pattern of the rule that applies to name
// and its capabilities, as match chooses it; "" and nil for none.
func (rs *ruleSet) matchRule(name string) (string, capSet) {
	if caps, ok := rs.exact[name]; ok {
		return name, caps
	}
	var best *globRule
	for i := range rs.globs {
		g := &rs.globs[i]
		if !globMatch(g.pattern, name) {
			continue
		}
		// Every pattern matching name has the same length to cover, so
		// the most literal characters means the fewest wildcarded ones.
		if best == nil || g.literal > best.literal {
			best = g
		}
	}
	if best == nil {
		return "", nil
	}
	return best.pattern, best.caps
}

// anyGrants reports whether some rule grants capability.
func (rs *ruleSet) anyGrants(capability string) bool {
	for _, caps := range rs.exact {
		if caps.allows(capability) {
			return true
		}
	}
	return slices.ContainsFunc(rs.globs, func(g globRule) bool { return g.caps.allows(capability) })
}

// globMatch reports whether s matches pattern, in which * stands for any
// run of characters, including none. It runs in O(len(pattern)*len(s)) at
// worst, with no recursion.
func globMatch(pattern, s string) bool {
	p, i := 0, 0
	star, mark := -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case p < len(pattern) && pattern[p] == s[i]:
			p++
			i++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

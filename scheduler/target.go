package scheduler

import (
	"strings"

	"github.com/drover-io/drover/structs"
)

// targetKind says where a constraint target's value comes from.
type targetKind int

const (
	targetLiteral targetKind = iota
	targetAttr
	targetMeta
	targetNodeID
	targetNodeName
	targetNodeDatacenter
	targetNodeClass
	targetNodePool
	targetUnknown
)

// target is one side of a constraint: a literal, or an interpolation of a
// node fact such as ${attr.kernel.name}, ${meta.rack} or ${node.class}.
type target struct {
	kind    targetKind
	literal string // the literal, or the attribute or meta key
}

var nodeTargets = map[string]targetKind{
	"node.unique.id":   targetNodeID,
	"node.unique.name": targetNodeName,
	"node.datacenter":  targetNodeDatacenter,
	"node.class":       targetNodeClass,
	"node.pool":        targetNodePool,
}

func parseTarget(s string) target {
	inner, ok := strings.CutPrefix(s, "${")
	if !ok {
		return target{kind: targetLiteral, literal: s}
	}
	inner, ok = strings.CutSuffix(inner, "}")
	if !ok {
		return target{kind: targetLiteral, literal: s}
	}
	if key, ok := strings.CutPrefix(inner, "attr."); ok {
		return target{kind: targetAttr, literal: key}
	}
	if key, ok := strings.CutPrefix(inner, "meta."); ok {
		return target{kind: targetMeta, literal: key}
	}
	if kind, ok := nodeTargets[inner]; ok {
		return target{kind: kind}
	}
	return target{kind: targetUnknown, literal: inner}
}

// resolve returns the target's value on a node; ok is false when the node
// has no such fact.
func (t target) resolve(node *structs.Node) (value string, ok bool) {
	switch t.kind {
	case targetLiteral:
		return t.literal, true
	case targetAttr:
		value, ok = node.Attributes[t.literal]
		return value, ok
	case targetMeta:
		value, ok = node.Meta[t.literal]
		return value, ok
	case targetNodeID:
		return node.ID, true
	case targetNodeName:
		return node.Name, true
	case targetNodeDatacenter:
		return node.Datacenter, true
	case targetNodeClass:
		return node.NodeClass, true
	case targetNodePool:
		if node.NodePool == "" {
			return structs.DefaultNodePool, true
		}
		return node.NodePool, true
	}
	return "", false
}

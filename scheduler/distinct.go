package scheduler

import (
	"strconv"

	"github.com/drover-io/drover/structs"
)

// reasonDistinctHosts is the metric reason of a node that already runs an
// allocation the distinct_hosts constraint keeps apart.
const reasonDistinctHosts = structs.ConstraintDistinctHosts

// nodeGroup names the allocations of one group on one node.
type nodeGroup struct{ node, group string }

// jobAllocs counts the job's live allocations per node, as the plan being
// built leaves them, for the distinct constraints and for spreading.
type jobAllocs struct {
	nodes        *nodeSet
	perNode      map[string]int
	perNodeGroup map[nodeGroup]int
	props        map[propertyKey]*propertyCount
}

func newJobAllocs(nodes *nodeSet, allocs []*structs.Allocation) *jobAllocs {
	j := &jobAllocs{
		nodes:        nodes,
		perNode:      make(map[string]int),
		perNodeGroup: make(map[nodeGroup]int),
		props:        make(map[propertyKey]*propertyCount),
	}
	for _, alloc := range allocs {
		if holdsResources(alloc) {
			j.add(alloc.NodeID, alloc.TaskGroup, 1)
		}
	}
	return j
}

// add records n more (or, negative, fewer) allocations of group on node.
func (j *jobAllocs) add(nodeID, group string, n int) {
	j.perNode[nodeID] += n
	j.perNodeGroup[nodeGroup{nodeID, group}] += n
	if len(j.props) == 0 {
		return
	}
	node, _ := j.nodes.node(nodeID)
	if node == nil {
		return
	}
	for key, count := range j.props {
		if key.group != "" && key.group != group {
			continue
		}
		if value, ok := key.target.resolve(node); ok {
			count.values[value] += n
		}
	}
}

// addAlloc and removeAlloc track a stored allocation that holds its place.
func (j *jobAllocs) addAlloc(alloc *structs.Allocation) {
	if holdsResources(alloc) {
		j.add(alloc.NodeID, alloc.TaskGroup, 1)
	}
}

func (j *jobAllocs) removeAlloc(alloc *structs.Allocation) {
	if holdsResources(alloc) {
		j.add(alloc.NodeID, alloc.TaskGroup, -1)
	}
}

// distinct reports whether one more allocation of the checker's group may
// go on the node under its distinct constraints, and otherwise why not.
func (j *jobAllocs) distinct(c *groupChecker, node *structs.Node) (ok bool, reason string) {
	switch c.distinctHosts {
	case distinctScopeJob:
		if j.perNode[node.ID] > 0 {
			return false, reasonDistinctHosts
		}
	case distinctScopeGroup:
		if j.perNodeGroup[nodeGroup{node.ID, c.tg.Name}] > 0 {
			return false, reasonDistinctHosts
		}
	}
	for _, p := range c.distinctProps {
		value, ok := p.key.target.resolve(node)
		if !ok || j.property(p.key).values[value] >= p.limit {
			return false, p.reason
		}
	}
	return true, ""
}

// property returns the counts of a property, counting the allocations
// already tracked the first time it is asked for.
func (j *jobAllocs) property(key propertyKey) *propertyCount {
	if count, ok := j.props[key]; ok {
		return count
	}
	count := &propertyCount{values: make(map[string]int)}
	for ng, n := range j.perNodeGroup {
		if n == 0 || (key.group != "" && key.group != ng.group) {
			continue
		}
		node, _ := j.nodes.node(ng.node)
		if node == nil {
			continue
		}
		if value, ok := key.target.resolve(node); ok {
			count.values[value] += n
		}
	}
	j.props[key] = count
	return count
}

// propertyValues is how many allocations of the key's group (or job)
// each value of its property holds.
func (j *jobAllocs) propertyValues(key propertyKey) map[string]int {
	return j.property(key).values
}

// distinctProperty is a distinct_property constraint: at most limit
// allocations of the job (or of one group) per value of a node property.
type distinctProperty struct {
	key    propertyKey
	limit  int
	reason string
}

// propertyKey names a counted property: the target and the group it
// counts, "" for the whole job.
type propertyKey struct {
	target target
	group  string
}

type propertyCount struct {
	values map[string]int
}

func newDistinctProperty(c *structs.Constraint, scope, group string) *distinctProperty {
	limit := 1
	if n, err := strconv.Atoi(c.RTarget); err == nil && n > 0 {
		limit = n
	}
	key := propertyKey{target: parseTarget(c.LTarget)}
	if scope == distinctScopeGroup {
		key.group = group
	}
	return &distinctProperty{key: key, limit: limit, reason: constraintReason(c)}
}

package scheduler

import (
	"math"
	"slices"
	"time"

	"github.com/drover-io/drover/structs"
)

// Scorer names, as metrics record them.
const (
	scorerBinPack           = "binpack"
	scorerJobAntiAffinity   = "job-anti-affinity"
	scorerReschedulePenalty = "node-reschedule-penalty"
	scorerFinal             = "normalized-score"
)

// groupPlacer places the allocations of one group during an attempt. It
// walks the shuffled candidate nodes from where its previous placement
// stopped, so that consecutive placements look at different nodes.
type groupPlacer struct {
	checker *groupChecker
	offset  int

	// failed is the metric of the group's first failed placement; once a
	// placement has failed, the group's later ones fail with it, since the
	// plan only takes capacity away.
	failed   *structs.AllocMetric
	failures int

	// networks holds, per node, the ports the latest look at the node
	// assigned the group there: what a placement on it gets.
	networks map[string][]*structs.NetworkResource

	// placeAt is the group's budget and whether its placements start at
	// the evaluation's time (deadline.go), decided once placeAtDecided.
	placeAt        structs.Placement
	placeAtDecided bool
}

// selectOptions tune the choice of a node for one placement.
type selectOptions struct {
	// limit is how many fitting nodes are scored before the best is
	// taken.
	limit int
	// spread penalises nodes that already run allocations of the group.
	spread bool
	// avoid are the nodes where the allocation failed before.
	avoid []string
	// index is the placed allocation's index in its group, for per_alloc
	// host volumes.
	index uint
}

// scoreLimit is how many fitting nodes a placement scores. Batch work only
// wants a good fit, so two will do; services are long-lived and worth
// scoring about log2(n) nodes.
func scoreLimit(jobType string, candidates int) int {
	const base = 2
	if jobType != structs.JobTypeService || candidates <= base {
		return base
	}
	return max(base, int(math.Ceil(math.Log2(float64(candidates)))))
}

// selectNode picks the best of the first limit candidate nodes that can
// run one more allocation of the group. It returns a nil node, and records
// the failure on the placer, when no candidate can.
func (ctx *planContext) selectNode(p *groupPlacer, opts selectOptions) (*structs.Node, *structs.AllocMetric, error) {
	if p.failed != nil {
		return nil, nil, nil
	}
	start := time.Now()
	m := newMetric(ctx.nodes)
	candidates := ctx.nodes.candidates
	var best *structs.Node
	bestScore := math.Inf(-1)
	found := 0
	for seen := 0; seen < len(candidates) && found < opts.limit; seen++ {
		pos := candidates[p.offset]
		p.offset = (p.offset + 1) % len(candidates)
		node := ctx.nodes.all[pos]
		m.NodesEvaluated++
		score, ok, err := ctx.rankNode(p, pos, node, opts, m)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			continue
		}
		found++
		if score > bestScore {
			best, bestScore = node, score
		}
	}
	m.AllocationTime = time.Since(start)
	if best == nil {
		p.failed = m
		return nil, m, nil
	}
	return best, m, nil
}

// rankNode scores a node for one more allocation of the group; ok is false
// when the node cannot take it, which is recorded on m.
func (ctx *planContext) rankNode(p *groupPlacer, pos int, node *structs.Node, opts selectOptions, m *structs.AllocMetric) (score float64, ok bool, err error) {
	c := p.checker
	if ok, reason := c.static(pos, node); !ok {
		filterNode(m, node, reason)
		return 0, false, nil
	}
	if ok, reason := c.volumes.forIndex(node, opts.index); !ok {
		filterNode(m, node, reason)
		return 0, false, nil
	}
	if ok, reason := ctx.jobAllocs.distinct(c, node); !ok {
		filterNode(m, node, reason)
		return 0, false, nil
	}
	used, err := ctx.usage.used(node.ID)
	if err != nil {
		return 0, false, err
	}
	capacity := capacityOf(node)
	if ok, dimension := capacity.fit(used, c.ask); !ok {
		exhaustNode(m, node, dimension)
		return 0, false, nil
	}
	if !ctx.assignPorts(p, node, m) {
		return 0, false, nil
	}
	binPack := capacity.binPackScore(used, c.ask)
	scoreNode(m, node, scorerBinPack, binPack)
	total, scorers := binPack, 1.0
	if c.affinity != nil {
		if affinity, matched := c.affinity.score(node); matched {
			scoreNode(m, node, scorerNodeAffinity, affinity)
			total, scorers = total+affinity, scorers+1
		}
	}
	if c.spread != nil {
		if spread, scored := c.spread.score(node, ctx.jobAllocs.propertyValues); scored {
			scoreNode(m, node, scorerSpread, spread)
			total, scorers = total+spread, scorers+1
		}
	}
	if opts.spread {
		if n := ctx.jobAllocs.perNodeGroup[nodeGroup{node.ID, c.tg.Name}]; n > 0 {
			penalty := -float64(n+1) / float64(max(c.tg.Count, 1))
			scoreNode(m, node, scorerJobAntiAffinity, penalty)
			total, scorers = total+penalty, scorers+1
		}
	}
	if slices.Contains(opts.avoid, node.ID) {
		scoreNode(m, node, scorerReschedulePenalty, -1)
		total, scorers = total-1, scorers+1
	}
	score = total / scorers
	scoreNode(m, node, scorerFinal, score)
	return score, true, nil
}

// fitsOn checks one given node for one more allocation of the group, as
// the system schedulers place: the node's metric goes into m.
func (ctx *planContext) fitsOn(p *groupPlacer, pos int, node *structs.Node, m *structs.AllocMetric) (fits, feasible bool, err error) {
	c := p.checker
	m.NodesEvaluated++
	if ok, reason := c.static(pos, node); !ok {
		filterNode(m, node, reason)
		return false, false, nil
	}
	if ok, reason := c.volumes.forIndex(node, 0); !ok {
		filterNode(m, node, reason) // a system job's allocations are all index 0
		return false, false, nil
	}
	if ok, reason := ctx.jobAllocs.distinct(c, node); !ok {
		filterNode(m, node, reason)
		return false, false, nil
	}
	used, err := ctx.usage.used(node.ID)
	if err != nil {
		return false, true, err
	}
	capacity := capacityOf(node)
	if ok, dimension := capacity.fit(used, c.ask); !ok {
		exhaustNode(m, node, dimension)
		return false, true, nil
	}
	if !ctx.assignPorts(p, node, m) {
		return false, true, nil
	}
	return true, true, nil
}

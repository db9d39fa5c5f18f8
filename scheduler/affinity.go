package scheduler

import (
	"math"

	"github.com/drover-io/drover/structs"
)

// scorerNodeAffinity names the affinity score in placement metrics.
const scorerNodeAffinity = "node-affinity"

// affinityScorer scores nodes by a group's affinities: those of its job,
// of the group and of its tasks, as Nomad counts them. A node's score is
// the sum of the weights of the affinities it matches over the sum of
// all the weights' sizes, so it lies in -1..1: 1 when it matches every
// positive affinity and no negative one.
type affinityScorer struct {
	checks  []*constraintCheck
	weights []float64
	total   float64
}

// newAffinityScorer returns nil when the group has no affinity.
func newAffinityScorer(job *structs.Job, tg *structs.TaskGroup) *affinityScorer {
	s := &affinityScorer{}
	s.add(job.Affinities)
	s.add(tg.Affinities)
	for _, task := range tg.Tasks {
		s.add(task.Affinities)
	}
	if len(s.checks) == 0 || s.total == 0 {
		return nil
	}
	return s
}

func (s *affinityScorer) add(as []*structs.Affinity) {
	for _, a := range as {
		if a == nil || a.Weight == 0 {
			continue
		}
		check, ok := compileConstraint(a.Constraint())
		if !ok {
			continue // validation refuses placement-wide operators
		}
		s.checks = append(s.checks, check)
		s.weights = append(s.weights, float64(a.Weight))
		s.total += math.Abs(float64(a.Weight))
	}
}

// score is the node's affinity score; matched is false when the node
// matches none of the affinities, which then adds no score, as in Nomad.
func (s *affinityScorer) score(node *structs.Node) (score float64, matched bool) {
	var sum float64
	for i, check := range s.checks {
		if check.feasible(node) {
			sum += s.weights[i]
			matched = true
		}
	}
	return sum / s.total, matched && sum != 0
}

// affinityLimit is how many fitting nodes a placement scores: with
// affinities or spreads every candidate, since the node they prefer may
// be any of them; otherwise limit.
func (c *groupChecker) affinityLimit(limit, candidates int) int {
	if c.affinity != nil || c.spread != nil {
		return max(limit, candidates)
	}
	return limit
}

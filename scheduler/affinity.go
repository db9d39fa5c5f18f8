package scheduler

import (
	"math"
	"reflect"
	"slices"

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

// preferencesChanged reports whether the affinities or spreads that
// apply to group differ between two versions of a job. As in Nomad, an
// allocation placed by other preferences is replaced rather than updated
// in place: where it runs was chosen for what the job asked before.
func preferencesChanged(old, next *structs.Job, group string) bool {
	if old == nil || next == nil {
		return old != next
	}
	oldTG, nextTG := old.LookupTaskGroup(group), next.LookupTaskGroup(group)
	if oldTG == nil || nextTG == nil {
		return oldTG != nextTG
	}
	return !reflect.DeepEqual(groupAffinities(old, oldTG), groupAffinities(next, nextTG)) ||
		!reflect.DeepEqual(groupSpreads(old, oldTG), groupSpreads(next, nextTG))
}

// groupAffinities are the affinities that apply to a group, in order:
// the job's, the group's, then each task's.
func groupAffinities(job *structs.Job, tg *structs.TaskGroup) []*structs.Affinity {
	out := slices.Concat(job.Affinities, tg.Affinities)
	for _, t := range tg.Tasks {
		out = append(out, t.Affinities...)
	}
	return out
}

func groupSpreads(job *structs.Job, tg *structs.TaskGroup) []*structs.Spread {
	return slices.Concat(job.Spreads, tg.Spreads)
}

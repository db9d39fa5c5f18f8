package scheduler

import (
	"github.com/drover-io/drover/structs"
)

// scorerSpread names the spread score in placement metrics, as Nomad's.
const scorerSpread = "allocation-spread"

// spreadScorer scores nodes by a group's spreads, the job's and its own,
// as Nomad does. For a spread with targets, a node whose attribute value
// still lacks allocations against its target's share scores up to its
// weight's part of the sum of the weights, one past it scores below zero,
// and one whose value no target names (and no share is left over for)
// scores -1. For a spread without targets, a node whose value has the
// fewest allocations scores up, the others down, so the allocations even
// out over the values.
type spreadScorer struct {
	specs []*spreadSpec
	// sumWeights is the sum of the spreads' weights.
	sumWeights float64
}

type spreadSpec struct {
	key    propertyKey
	weight float64
	// desired is the number of allocations wanted per value; empty for
	// an even spread. rest, when positive, is the number wanted over the
	// values no target names.
	desired map[string]float64
	rest    float64
}

// newSpreadScorer returns nil when the group has no spread.
func newSpreadScorer(job *structs.Job, tg *structs.TaskGroup) *spreadScorer {
	s := &spreadScorer{}
	for _, spread := range append(append([]*structs.Spread{}, tg.Spreads...), job.Spreads...) {
		if spread == nil {
			continue
		}
		spec := &spreadSpec{
			key:     propertyKey{target: parseTarget(spread.Attribute), group: tg.Name},
			weight:  float64(spread.Weight),
			desired: map[string]float64{},
		}
		var wanted float64
		for _, t := range spread.SpreadTarget {
			if t == nil {
				continue
			}
			n := float64(t.Percent) / 100 * float64(tg.Count)
			spec.desired[t.Value] = n
			wanted += n
		}
		if wanted > 0 && wanted < float64(tg.Count) {
			spec.rest = float64(tg.Count) - wanted
		}
		s.specs = append(s.specs, spec)
		s.sumWeights += spec.weight
	}
	if len(s.specs) == 0 {
		return nil
	}
	return s
}

// score is the node's spread score given the group's allocations placed
// so far (counts); ok is false when it is zero, which adds no score.
func (s *spreadScorer) score(node *structs.Node, counts func(propertyKey) map[string]int) (score float64, ok bool) {
	for _, spec := range s.specs {
		value, has := spec.key.target.resolve(node)
		if !has {
			score-- // the node lacks the attribute: the largest penalty
			continue
		}
		used := counts(spec.key)
		if len(spec.desired) == 0 {
			score += evenSpreadBoost(used, value)
			continue
		}
		desired, named := spec.desired[value]
		if !named {
			desired = spec.rest
		}
		if desired <= 0 {
			score-- // no allocation is wanted on this value
			continue
		}
		// One more allocation, this one, on the value.
		placed := float64(used[value] + 1)
		share := spec.weight / s.sumWeights
		score += (desired - placed) / desired * share
	}
	return score, score != 0
}

// evenSpreadBoost scores a value for an even spread: nothing placed yet
// scores nothing; a value with fewer allocations than the least used one
// scores up by how many fewer, one with more scores down; among the least
// used when others have more, up by how far it is from the most used;
// and when every value has as many, -1, so that a new value wins.
func evenSpreadBoost(used map[string]int, value string) float64 {
	lo, hi, seen := 0, 0, false
	for _, n := range used {
		if n <= 0 {
			continue
		}
		if !seen || n < lo {
			lo = n
		}
		if !seen || n > hi {
			hi = n
		}
		seen = true
	}
	if !seen {
		return 0
	}
	cur := max(used[value], 0)
	switch {
	case cur != lo:
		return float64(lo-cur) / float64(lo)
	case lo == hi:
		return -1
	}
	return float64(hi-cur) / float64(hi)
}

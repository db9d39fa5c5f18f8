package convert

import (
	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

// affinitiesFromAPI converts affinity blocks; a missing weight is Nomad's
// default. A null entry stays nil, for validation to name.
func affinitiesFromAPI(in []*api.Affinity) []*structs.Affinity {
	if in == nil {
		return nil
	}
	out := make([]*structs.Affinity, len(in))
	for i, a := range in {
		if a == nil {
			continue
		}
		weight := int8(structs.DefaultAffinityWeight)
		setIf(&weight, a.Weight)
		out[i] = &structs.Affinity{LTarget: a.LTarget, RTarget: a.RTarget, Operand: a.Operand, Weight: weight}
	}
	return out
}

func affinitiesToAPI(in []*structs.Affinity) []*api.Affinity {
	if in == nil {
		return nil
	}
	out := make([]*api.Affinity, len(in))
	for i, a := range in {
		if a != nil {
			weight := a.Weight
			out[i] = &api.Affinity{LTarget: a.LTarget, RTarget: a.RTarget, Operand: a.Operand, Weight: &weight}
		}
	}
	return out
}

package convert

import (
	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

// spreadsFromAPI converts spread blocks; a missing weight is Nomad's
// default. Null entries stay nil, for validation to name.
func spreadsFromAPI(in []*api.Spread) []*structs.Spread {
	if in == nil {
		return nil
	}
	out := make([]*structs.Spread, len(in))
	for i, s := range in {
		if s == nil {
			continue
		}
		weight := int8(structs.DefaultSpreadWeight)
		setIf(&weight, s.Weight)
		out[i] = &structs.Spread{Attribute: s.Attribute, Weight: weight}
		if s.SpreadTarget != nil {
			out[i].SpreadTarget = make([]*structs.SpreadTarget, len(s.SpreadTarget))
			for j, t := range s.SpreadTarget {
				if t != nil {
					out[i].SpreadTarget[j] = &structs.SpreadTarget{Value: t.Value, Percent: t.Percent}
				}
			}
		}
	}
	return out
}

func spreadsToAPI(in []*structs.Spread) []*api.Spread {
	if in == nil {
		return nil
	}
	out := make([]*api.Spread, len(in))
	for i, s := range in {
		if s == nil {
			continue
		}
		weight := s.Weight
		out[i] = &api.Spread{Attribute: s.Attribute, Weight: &weight}
		if s.SpreadTarget != nil {
			out[i].SpreadTarget = make([]*api.SpreadTarget, len(s.SpreadTarget))
			for j, t := range s.SpreadTarget {
				if t != nil {
					out[i].SpreadTarget[j] = &api.SpreadTarget{Value: t.Value, Percent: t.Percent}
				}
			}
		}
	}
	return out
}

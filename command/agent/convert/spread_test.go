package convert

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

// TestSpreadsFromAPI_defaultWeight: a spread without a weight weighs
// Nomad's 50; null entries stay for validation to name.
func TestSpreadsFromAPI_defaultWeight(t *testing.T) {
	got := spreadsFromAPI([]*api.Spread{
		{Attribute: "${meta.rack}", SpreadTarget: []*api.SpreadTarget{{Value: "r1", Percent: 40}, nil}},
		nil,
	})
	must.Eq(t, []*structs.Spread{
		{Attribute: "${meta.rack}", Weight: structs.DefaultSpreadWeight, SpreadTarget: []*structs.SpreadTarget{{Value: "r1", Percent: 40}, nil}},
		nil,
	}, got)
}

package convert

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

// TestAffinitiesFromAPI_defaultWeight: an affinity without a weight
// weighs Nomad's 50; a null entry stays for validation to name.
func TestAffinitiesFromAPI_defaultWeight(t *testing.T) {
	w := int8(-20)
	got := affinitiesFromAPI([]*api.Affinity{
		{LTarget: "${meta.rack}", RTarget: "r1", Operand: "="},
		{LTarget: "${meta.rack}", RTarget: "r2", Operand: "!=", Weight: &w},
		nil,
	})
	must.Eq(t, []*structs.Affinity{
		{LTarget: "${meta.rack}", RTarget: "r1", Operand: "=", Weight: structs.DefaultAffinityWeight},
		{LTarget: "${meta.rack}", RTarget: "r2", Operand: "!=", Weight: -20},
		nil,
	}, got)
}

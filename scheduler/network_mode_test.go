package scheduler

import (
	"fmt"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// A bridge-mode group goes only to nodes whose client fingerprinted the
// bridge network; the others are filtered with the mode named.
func TestFeasibility_missingNetworkMode(t *testing.T) {
	h := newHarness(t)
	h.addNodes(4, func(i int, n *structs.Node) {
		n.NodeResources.Networks = []*structs.NetworkResource{{Mode: structs.NetworkModeHost, IP: fmt.Sprintf("10.0.0.%d", i+1)}}
		if i%2 == 0 {
			n.NodeResources.Networks = append(n.NodeResources.Networks, &structs.NetworkResource{Mode: structs.NetworkModeBridge})
		}
	})
	job := mockJob(structs.JobTypeBatch, 10)
	job.TaskGroups[0].Networks = []*structs.NetworkResource{{Mode: structs.NetworkModeBridge, DynamicPorts: []structs.Port{{Label: "http", To: 8080}}}}
	job.Constraints = []*structs.Constraint{{Operand: structs.ConstraintDistinctHosts}}
	must.MapLen(t, 2, placedNodes(t, h, job))
	m := h.lastUpdate().FailedTGAllocs["g"]
	must.NotNil(t, m)
	must.Eq(t, 2, m.ConstraintFiltered["missing network: bridge"])

	cniJob := mockJob(structs.JobTypeBatch, 1)
	cniJob.ID = "cni"
	cniJob.TaskGroups[0].Networks = []*structs.NetworkResource{{Mode: "cni/mynet"}}
	must.MapLen(t, 0, placedNodes(t, h, cniJob))
	m = h.lastUpdate().FailedTGAllocs["g"]
	must.NotNil(t, m)
	must.Eq(t, map[string]int{"missing network: cni/mynet": 4}, m.ConstraintFiltered)
}

package planeval

import (
	"fmt"
	"slices"

	"github.com/drover-io/drover/structs"
)

// portCollision names a host port that two of the live allocations of a
// node hold, or that one holds and the node reserves; empty when there is
// none. Schedulers working at once each see a node's ports free: the plan
// applier is where the second one learns otherwise.
func portCollision(node *structs.Node, live map[string]*structs.Allocation) string {
	reserved := node.ReservedPorts()
	holder := map[int]string{}
	ids := make([]string, 0, len(live))
	for id := range live {
		ids = append(ids, id)
	}
	slices.Sort(ids) // the same report for the same plan
	for _, id := range ids {
		for _, p := range live[id].HostPorts() {
			if reserved[p.Value] {
				return fmt.Sprintf("network: reserved port collision %s=%d", p.Label, p.Value)
			}
			if other, taken := holder[p.Value]; taken {
				return fmt.Sprintf("network: port collision: port %d (%s) held by allocations %s and %s", p.Value, p.Label, structs.ShortID(other), structs.ShortID(id))
			}
			holder[p.Value] = id
		}
	}
	return ""
}

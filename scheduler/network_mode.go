package scheduler

import "github.com/drover-io/drover/structs"

// reasonMissingNetwork starts the metric reason of a node whose client
// cannot give the group's network its mode (no CNI plugins for bridge, no
// such cni/<name> network, not root for none); the reason goes on to name
// the mode ("missing network: bridge"), as Nomad's "missing network".
const reasonMissingNetwork = "missing network"

// networkModeFeasible reports whether the node offers the group's network
// mode: host always, the others where the client fingerprinted them as a
// network of the node.
func networkModeFeasible(tg *structs.TaskGroup, node *structs.Node) (bool, string) {
	mode := tg.NetworkMode()
	if node.HasNetworkMode(mode) {
		return true, ""
	}
	return false, reasonMissingNetwork + ": " + mode
}

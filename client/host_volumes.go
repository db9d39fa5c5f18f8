package client

import (
	"maps"

	"github.com/drover-io/drover/structs"
)

// hostVolumes is the node's copy of the host volumes the operator
// configured: the scheduler places groups that ask for one by its name,
// and task runners mount its path.
func hostVolumes(in map[string]*structs.ClientHostVolume) map[string]*structs.ClientHostVolume {
	out := maps.Clone(in)
	for k, v := range out {
		out[k] = v.Copy()
	}
	return out
}

package command

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/drover-io/drover/api"
)

// hostVolumeNames lists the node's host volumes by name, as Nomad's
// summary does.
func hostVolumeNames(node *api.Node) string {
	return orNone(strings.Join(slices.Sorted(maps.Keys(node.HostVolumes)), ","))
}

// hostVolumeTable lists the node's host volumes with their paths, for
// -verbose.
func hostVolumeTable(node *api.Node) string {
	if len(node.HostVolumes) == 0 {
		return "<none>"
	}
	rows := []string{"Name|ReadOnly|Source"}
	for _, name := range slices.Sorted(maps.Keys(node.HostVolumes)) {
		v := node.HostVolumes[name]
		if v == nil {
			continue
		}
		rows = append(rows, name+"|"+strconv.FormatBool(v.ReadOnly)+"|"+v.Path)
	}
	return formatList(rows)
}

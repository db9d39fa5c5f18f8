package command

import (
	"fmt"

	"github.com/drover-io/drover/api"
)

// resolveNode finds the node an ID or a unique ID prefix names, reporting
// to the UI when there is none or several.
func (m *Meta) resolveNode(client *api.Client, id string) (*api.NodeListStub, bool) {
	nodes, _, err := client.Nodes().PrefixList(id)
	if err != nil {
		m.Ui.Error(apiErrorLine(client, "querying nodes", err))
		return nil, false
	}
	node, ambiguous, ok := prefixMatch(id, nodes, func(n *api.NodeListStub) string { return n.ID })
	switch {
	case ok:
		return node, true
	case len(ambiguous) == 0:
		m.Ui.Error(fmt.Sprintf("No node(s) with prefix or id %q found", id))
	default:
		m.Ui.Error(fmt.Sprintf("Prefix matched multiple nodes\n\n%s", nodeListTable(ambiguous, false)))
	}
	return nil, false
}

package command

import "github.com/drover-io/drover/api"

// resolveNode finds the node an ID or a unique ID prefix names, reporting
// to the UI when there is none or several.
func (m *Meta) resolveNode(client *api.Client, id string) (*api.NodeListStub, bool) {
	nodes, _, err := client.Nodes().PrefixList(id)
	if err != nil {
		m.Ui.Error(apiErrorLine(client, "querying nodes", err))
		return nil, false
	}
	return resolvePrefix(m.Ui, id, "node", nodes, func(n *api.NodeListStub) string { return n.ID },
		func(ambiguous []*api.NodeListStub) string { return nodeListTable(ambiguous, false) })
}

package command

import "github.com/drover-io/drover/api"

// clientAndNode is apiClient, then resolveNode of id: for a command whose
// first argument is a node. False once either has told the user why not.
func (m *Meta) clientAndNode(id string) (*api.Client, *api.NodeListStub, bool) {
	client, ok := m.apiClient()
	if !ok {
		return nil, nil, false
	}
	node, ok := m.resolveNode(client, id)
	return client, node, ok
}

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

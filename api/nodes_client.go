package api

import "net/url"

// Nodes is the handle on the node endpoints.
type Nodes struct {
	client *Client
}

// Nodes returns the handle on the node endpoints.
func (c *Client) Nodes() *Nodes {
	return &Nodes{client: c}
}

func nodePath(nodeID string, sub ...string) string {
	p := "/v1/node/" + url.PathEscape(nodeID)
	for _, s := range sub {
		p += "/" + s
	}
	return p
}

// List returns the nodes the options select; q.Prefix filters by ID prefix.
func (n *Nodes) List(q *QueryOptions) ([]*NodeListStub, *QueryMeta, error) {
	var resp []*NodeListStub
	qm, err := n.client.query("/v1/nodes", &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return resp, qm, nil
}

// PrefixList returns the nodes whose ID starts with prefix.
func (n *Nodes) PrefixList(prefix string) ([]*NodeListStub, *QueryMeta, error) {
	return n.List(&QueryOptions{Prefix: prefix})
}

// Info returns the node with the given ID.
func (n *Nodes) Info(nodeID string, q *QueryOptions) (*Node, *QueryMeta, error) {
	var resp Node
	qm, err := n.client.query(nodePath(nodeID), &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return &resp, qm, nil
}

// Allocations returns the allocations placed on a node.
func (n *Nodes) Allocations(nodeID string, q *QueryOptions) ([]*Allocation, *QueryMeta, error) {
	var resp []*Allocation
	qm, err := n.client.query(nodePath(nodeID, "allocations"), &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return resp, qm, nil
}

// ToggleEligibility makes a node eligible, or ineligible, for new
// placements. Allocations already on the node keep running either way.
func (n *Nodes) ToggleEligibility(nodeID string, eligible bool, q *WriteOptions) (*NodeEligibilityUpdateResponse, error) {
	req := &NodeUpdateEligibilityRequest{NodeID: nodeID, Eligibility: NodeSchedulingIneligible}
	if eligible {
		req.Eligibility = NodeSchedulingEligible
	}
	var resp NodeEligibilityUpdateResponse
	wm, err := n.client.post(nodePath(nodeID, "eligibility"), req, &resp, q)
	if err != nil {
		return nil, err
	}
	resp.WriteMeta = *wm
	return &resp, nil
}

// UpdateDrain starts, changes or, with a nil spec, cancels the drain of a
// node. When cancelling, markEligible also makes the node eligible again.
func (n *Nodes) UpdateDrain(nodeID string, spec *DrainSpec, markEligible bool, q *WriteOptions) (*NodeDrainUpdateResponse, error) {
	req := &NodeUpdateDrainRequest{NodeID: nodeID, DrainSpec: spec, MarkEligible: markEligible}
	var resp NodeDrainUpdateResponse
	wm, err := n.client.post(nodePath(nodeID, "drain"), req, &resp, q)
	if err != nil {
		return nil, err
	}
	resp.WriteMeta = *wm
	return &resp, nil
}

package api

import "net/url"

// Evaluations is the handle on the evaluation endpoints.
type Evaluations struct {
	client *Client
}

// Evaluations returns the handle on the evaluation endpoints.
func (c *Client) Evaluations() *Evaluations {
	return &Evaluations{client: c}
}

func evalPath(evalID string, sub ...string) string {
	p := "/v1/evaluation/" + url.PathEscape(evalID)
	for _, s := range sub {
		p += "/" + s
	}
	return p
}

// List returns the evaluations the options select; q.Prefix filters by ID
// prefix.
func (e *Evaluations) List(q *QueryOptions) ([]*Evaluation, *QueryMeta, error) {
	var resp []*Evaluation
	qm, err := e.client.query("/v1/evaluations", &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return resp, qm, nil
}

// PrefixList returns the evaluations whose ID starts with prefix.
func (e *Evaluations) PrefixList(prefix string) ([]*Evaluation, *QueryMeta, error) {
	return e.List(&QueryOptions{Prefix: prefix})
}

// Info returns the evaluation with the given ID. With q.Params["related"]
// set to "true" the answer also lists the evaluations related to it in
// RelatedEvals.
func (e *Evaluations) Info(evalID string, q *QueryOptions) (*Evaluation, *QueryMeta, error) {
	var resp Evaluation
	qm, err := e.client.query(evalPath(evalID), &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return &resp, qm, nil
}

// Allocations returns the allocations an evaluation created or changed.
func (e *Evaluations) Allocations(evalID string, q *QueryOptions) ([]*AllocationListStub, *QueryMeta, error) {
	var resp []*AllocationListStub
	qm, err := e.client.query(evalPath(evalID, "allocations"), &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return resp, qm, nil
}

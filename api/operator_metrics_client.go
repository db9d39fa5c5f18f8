package api

import "fmt"

// Operator is the handle on the operator endpoints.
type Operator struct {
	client *Client
}

// Operator returns the handle on the operator endpoints.
func (c *Client) Operator() *Operator {
	return &Operator{client: c}
}

// Metrics returns the body of GET /v1/metrics as it comes: JSON by default,
// Prometheus' text format with q.Params["format"] set to "prometheus".
func (op *Operator) Metrics(q *QueryOptions) ([]byte, error) {
	body, err := op.client.rawQuery("/v1/metrics", q)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	raw, err := readAllCapped(body, maxRawResponse)
	if err != nil {
		return nil, fmt.Errorf("read metrics: %w", err)
	}
	return raw, nil
}

// MetricsSummary returns the agent's metrics decoded from their JSON form.
// It always asks for JSON, whatever format q names.
func (op *Operator) MetricsSummary(q *QueryOptions) (*MetricsSummary, *QueryMeta, error) {
	if q != nil && q.Params["format"] != "" {
		q = withoutParam(q, "format")
	}
	var resp MetricsSummary
	qm, err := op.client.query("/v1/metrics", &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return &resp, qm, nil
}

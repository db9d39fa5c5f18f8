package api

// System is the handle on the system maintenance endpoints.
type System struct {
	client *Client
}

// System returns the handle on the system maintenance endpoints.
func (c *Client) System() *System {
	return &System{client: c}
}

// GarbageCollect asks the servers to collect garbage now, regardless of
// the thresholds (PUT /v1/system/gc). It needs a management token.
func (s *System) GarbageCollect() error {
	_, err := s.client.put("/v1/system/gc", nil, nil, nil)
	return err
}

// ReconcileSummaries asks the servers to reconcile the job summaries
// (PUT /v1/system/reconcile/summaries). It needs a management token.
func (s *System) ReconcileSummaries() error {
	_, err := s.client.put("/v1/system/reconcile/summaries", nil, nil, nil)
	return err
}

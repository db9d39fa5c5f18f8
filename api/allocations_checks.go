package api

// AllocCheckStatus is the latest result of one check of an allocation's
// services, as its client runs it. The names are those of Nomad's.
type AllocCheckStatus struct {
	ID      string
	Check   string
	Group   string
	Mode    string
	Output  string
	Service string
	// Task is the task whose run the check belongs to; empty for a
	// group's check.
	Task string
	// Status is "success", "warning", "failure" or "pending".
	Status     string
	StatusCode int
	// Timestamp is when the result came, in Unix seconds.
	Timestamp int64
}

// AllocCheckStatuses are an allocation's checks by ID.
type AllocCheckStatuses map[string]AllocCheckStatus

// Checks returns the latest result of each running check of the
// allocation's services.
func (a *Allocations) Checks(allocID string, q *QueryOptions) (AllocCheckStatuses, error) {
	var out AllocCheckStatuses
	if _, err := a.client.query(clientAllocPath(allocID, "checks"), &out, q); err != nil {
		return nil, err
	}
	return out, nil
}

package structs

import "encoding/json"

// MarshalJSON encodes the allocation in its wire shape, which carries one
// derived field beyond the stored ones: MaxRunDeadline, the deadline in Unix
// nanoseconds, omitted when the group has no max_run_duration (see
// api.Allocation). Decoding needs no counterpart: the field is derived, and
// encoding/json skips it.
//
// The receiver is a value so that Allocation values encode alike. A type
// that embeds Allocation would inherit this method and encode as an
// allocation; wrap it in a named field instead.
func (a Allocation) MarshalJSON() ([]byte, error) {
	// wireAllocation has Allocation's fields but not its methods, so
	// encoding it does not come back here.
	type wireAllocation Allocation
	return json.Marshal(struct {
		wireAllocation
		MaxRunDeadline int64 `json:",omitempty"`
	}{wireAllocation(a), a.maxRunDeadlineUnixNano()})
}

// maxRunDeadlineUnixNano is MaxRunDeadline in Unix nanoseconds, or zero.
func (a *Allocation) maxRunDeadlineUnixNano() int64 {
	deadline, ok := a.MaxRunDeadline()
	if !ok {
		return 0
	}
	return deadline.UnixNano()
}

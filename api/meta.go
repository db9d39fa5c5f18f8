package api

import "time"

// QueryMeta is what the server says about a read: the index it reflects and
// how fresh the answering server's view is.
type QueryMeta struct {
	LastIndex   uint64
	LastContact time.Duration
	KnownLeader bool
	RequestTime time.Duration
	// NextToken, from a paged list, is where the next page starts.
	NextToken string
}

// WriteMeta is what the server says about a write.
type WriteMeta struct {
	LastIndex   uint64
	RequestTime time.Duration
}

package structs

import "time"

// The requests and answers of the servers' Variables RPC endpoint, which
// the HTTP API and a client's template renderer (with a task's workload
// identity) call alike.

// QueryOptions are what a read over RPC takes: the caller's secret (an
// ACL token's or a workload identity) and Nomad's blocking-query options.
type QueryOptions struct {
	// AuthToken is the caller's ACL secret or workload identity.
	AuthToken string `json:",omitempty"`
	// MinQueryIndex makes the read block until its result's index is
	// above it; 0 answers at once.
	MinQueryIndex uint64 `json:",omitempty"`
	// MaxQueryTime bounds a blocking read (the server's default wait
	// when zero, never more than its maximum).
	MaxQueryTime time.Duration `json:",omitempty"`
	// AllowStale lets any server answer from its own state.
	AllowStale bool `json:",omitempty"`
}

// QueryMeta is what a read says about its answer.
type QueryMeta struct {
	// Index is the raft index the answer reflects: the next read's
	// MinQueryIndex to wait for a change.
	Index       uint64
	KnownLeader bool
	LastContact time.Duration
}

// VariablesReadRequest reads the variable at Path in Namespace.
type VariablesReadRequest struct {
	Path      string
	Namespace string
	QueryOptions
}

// VariablesReadResponse holds the variable read, Data nil when there is
// none at the path.
type VariablesReadResponse struct {
	Data *VariableDecrypted
	QueryMeta
}

// VariablesListRequest lists the variables whose path starts with Prefix
// in Namespace ("*": every namespace the caller may list in).
type VariablesListRequest struct {
	Prefix    string
	Namespace string
	// PerPage, when above 0, bounds the answer; NextToken, from the
	// previous page's answer, says where to resume.
	PerPage   int32  `json:",omitempty"`
	NextToken string `json:",omitempty"`
	QueryOptions
}

// VariablesListResponse holds the metadata, never the items, of the
// variables listed, sorted by namespace and path; NextToken, when not
// empty, is where the next page starts.
type VariablesListResponse struct {
	Data      []*VariableMetadata
	NextToken string `json:",omitempty"`
	QueryMeta
}

// Variable write operations, as VariablesApplyRequest.Op names them.
const (
	VarOpSet         = "set"
	VarOpDelete      = "delete"
	VarOpLockAcquire = "lock-acquire"
	VarOpLockRelease = "lock-release"
	VarOpLockRenew   = "lock-renew"
)

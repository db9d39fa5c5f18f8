package api

import "time"

// Evaluation statuses.
const (
	EvalStatusBlocked   = "blocked"
	EvalStatusPending   = "pending"
	EvalStatusComplete  = "complete"
	EvalStatusFailed    = "failed"
	EvalStatusCancelled = "canceled"
)

// Evaluation is the server's decision to (re)consider a job's placements.
type Evaluation struct {
	ID                string
	Priority          int
	Type              string
	TriggeredBy       string
	Namespace         string
	JobID             string
	JobModifyIndex    uint64
	NodeID            string
	NodeModifyIndex   uint64
	DeploymentID      string
	Status            string
	StatusDescription string
	Wait              time.Duration
	WaitUntil         time.Time
	NextEval          string
	PreviousEval      string
	BlockedEval       string
	RelatedEvals      []*EvaluationStub
	FailedTGAllocs    map[string]*AllocationMetric
	ClassEligibility  map[string]bool
	QueuedAllocations map[string]int
	SnapshotIndex     uint64
	CreateIndex       uint64
	ModifyIndex       uint64
	CreateTime        int64
	ModifyTime        int64
	// PendingSince and PendingExpired are Drover additions: when the
	// placements a blocked evaluation waits for were asked for (Unix
	// nanoseconds), and per group those given up for max_pending_duration.
	PendingSince   int64          `json:",omitempty"`
	PendingExpired map[string]int `json:",omitempty"`
}

// EvaluationStub is the summary of an evaluation.
type EvaluationStub struct {
	ID                string
	Priority          int
	Type              string
	TriggeredBy       string
	Namespace         string
	JobID             string
	NodeID            string
	DeploymentID      string
	Status            string
	StatusDescription string
	WaitUntil         time.Time
	NextEval          string
	PreviousEval      string
	BlockedEval       string
	CreateIndex       uint64
	ModifyIndex       uint64
	CreateTime        int64
	ModifyTime        int64
}

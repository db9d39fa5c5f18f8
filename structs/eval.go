package structs

import "time"

// Evaluation statuses.
const (
	EvalStatusBlocked   = "blocked"
	EvalStatusPending   = "pending"
	EvalStatusComplete  = "complete"
	EvalStatusFailed    = "failed"
	EvalStatusCancelled = "canceled"
)

// What triggered an evaluation.
const (
	EvalTriggerJobRegister       = "job-register"
	EvalTriggerJobDeregister     = "job-deregister"
	EvalTriggerJobEval           = "job-eval"
	EvalTriggerPeriodicJob       = "periodic-job"
	EvalTriggerNodeDrain         = "node-drain"
	EvalTriggerNodeUpdate        = "node-update"
	EvalTriggerAllocStop         = "alloc-stop"
	EvalTriggerRetryFailedAlloc  = "alloc-failure"
	EvalTriggerQueuedAllocs      = "queued-allocs"
	EvalTriggerMaxPlans          = "max-plan-attempts"
	EvalTriggerFailedFollowUp    = "failed-eval-follow-up"
	EvalTriggerReschedulingAlloc = "reschedule"
	EvalTriggerDeploymentWatcher = "deployment-watcher"
)

// Evaluation is the server's decision to (re)consider a job's placements.
type Evaluation struct {
	ID              string
	Namespace       string
	Priority        int
	Type            string
	TriggeredBy     string
	JobID           string
	JobModifyIndex  uint64
	NodeID          string
	NodeModifyIndex uint64
	// DeploymentID is the deployment whose progress triggered the
	// evaluation, if any.
	DeploymentID      string
	Status            string
	StatusDescription string
	Wait              time.Duration
	WaitUntil         time.Time
	NextEval          string
	PreviousEval      string
	BlockedEval       string
	FailedTGAllocs    map[string]*AllocMetric
	ClassEligibility  map[string]bool
	QueuedAllocations map[string]int
	SnapshotIndex     uint64
	CreateIndex       uint64
	ModifyIndex       uint64
	CreateTime        int64
	ModifyTime        int64

	// PendingSince is Drover's, on a blocked evaluation: when the
	// evaluation that asked for its placements was created, the instant
	// max_pending_duration counts from (pending_timeout.go). Zero counts
	// from the blocked evaluation's own CreateTime.
	PendingSince int64 `json:",omitempty"`
	// PendingExpired is Drover's: per group, the placements of this
	// evaluation given up because they waited longer than the group's
	// max_pending_duration. The scheduler does not make them again.
	PendingExpired map[string]int `json:",omitempty"`
}

// TerminalStatus reports whether the evaluation is finished.
func (e *Evaluation) TerminalStatus() bool {
	switch e.Status {
	case EvalStatusComplete, EvalStatusFailed, EvalStatusCancelled:
		return true
	}
	return false
}

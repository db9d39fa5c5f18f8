package convert

import (
	"maps"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

// EvalToAPI converts an evaluation into its wire form, without related
// evaluations (RelatedEvals is null, as in Nomad without ?related). It
// shares no memory with e.
func EvalToAPI(e *structs.Evaluation) *api.Evaluation {
	if e == nil {
		return nil
	}
	return &api.Evaluation{
		ID:                e.ID,
		Priority:          e.Priority,
		Type:              e.Type,
		TriggeredBy:       e.TriggeredBy,
		Namespace:         e.Namespace,
		JobID:             e.JobID,
		JobModifyIndex:    e.JobModifyIndex,
		NodeID:            e.NodeID,
		NodeModifyIndex:   e.NodeModifyIndex,
		DeploymentID:      e.DeploymentID,
		Status:            e.Status,
		StatusDescription: e.StatusDescription,
		Wait:              e.Wait,
		WaitUntil:         e.WaitUntil,
		NextEval:          e.NextEval,
		PreviousEval:      e.PreviousEval,
		BlockedEval:       e.BlockedEval,
		FailedTGAllocs:    convertMap(e.FailedTGAllocs, allocMetricToAPI),
		ClassEligibility:  maps.Clone(e.ClassEligibility),
		QueuedAllocations: maps.Clone(e.QueuedAllocations),
		SnapshotIndex:     e.SnapshotIndex,
		CreateIndex:       e.CreateIndex,
		ModifyIndex:       e.ModifyIndex,
		CreateTime:        e.CreateTime,
		ModifyTime:        e.ModifyTime,
		PendingSince:      e.PendingSince,
		PendingExpired:    maps.Clone(e.PendingExpired),
	}
}

// EvalsToAPI converts evaluations; never nil, so that none encodes as [].
func EvalsToAPI(evals []*structs.Evaluation) []*api.Evaluation {
	return List(evals, EvalToAPI)
}

// EvalStub is the summary of an evaluation.
func EvalStub(e *structs.Evaluation) *api.EvaluationStub {
	return &api.EvaluationStub{
		ID:                e.ID,
		Priority:          e.Priority,
		Type:              e.Type,
		TriggeredBy:       e.TriggeredBy,
		Namespace:         e.Namespace,
		JobID:             e.JobID,
		NodeID:            e.NodeID,
		DeploymentID:      e.DeploymentID,
		Status:            e.Status,
		StatusDescription: e.StatusDescription,
		WaitUntil:         e.WaitUntil,
		NextEval:          e.NextEval,
		PreviousEval:      e.PreviousEval,
		BlockedEval:       e.BlockedEval,
		CreateIndex:       e.CreateIndex,
		ModifyIndex:       e.ModifyIndex,
		CreateTime:        e.CreateTime,
		ModifyTime:        e.ModifyTime,
	}
}

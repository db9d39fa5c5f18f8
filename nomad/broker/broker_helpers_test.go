package broker

import "github.com/drover-io/drover/structs"

// allQueues are the queues of every scheduler type.
var allQueues = []string{
	structs.JobTypeService, structs.JobTypeBatch, structs.JobTypeSystem, structs.JobTypeSysbatch,
}

// pendingEval is a pending evaluation of a batch job.
func pendingEval(jobID string) *structs.Evaluation {
	return &structs.Evaluation{
		ID:          structs.GenerateUUID(),
		Namespace:   structs.DefaultNamespace,
		Priority:    structs.DefaultPriority,
		Type:        structs.JobTypeBatch,
		TriggeredBy: structs.EvalTriggerJobRegister,
		JobID:       jobID,
		Status:      structs.EvalStatusPending,
		CreateTime:  1,
		ModifyTime:  1,
	}
}

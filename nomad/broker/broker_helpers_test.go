package broker

import (
	"github.com/drover-io/drover/nomad/internal/fixture"
	"github.com/drover-io/drover/structs"
)

// allQueues are the queues of every scheduler type.
var allQueues = []string{
	structs.JobTypeService, structs.JobTypeBatch, structs.JobTypeSystem, structs.JobTypeSysbatch,
}

// pendingEval is a pending evaluation of a batch job.
var pendingEval = fixture.Eval

package nomad

import (
	"fmt"

	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// rerunWarning says, for a register that will start nothing, why: the job
// is a batch job that has finished and is registered again unchanged, and
// the scheduler does not run again the allocations of a finished version.
// Without it `job run` reports success and nothing happens. It is "" for
// every other register.
func rerunWarning(existing, job *structs.Job) (string, error) {
	if existing == nil || existing.Stop || existing.Status != structs.JobStatusDead || job.LaunchesChildren() {
		return "", nil
	}
	if job.Type != structs.JobTypeBatch && job.Type != structs.JobTypeSysbatch {
		return "", nil
	}
	changed, err := state.SpecChanged(existing, job)
	if err != nil || changed {
		return "", err
	}
	return fmt.Sprintf("Job %q is unchanged and has finished: nothing will be started, as the scheduler does not run a finished %s job's allocations again. "+
		"To run it again, change the job, or purge it first with \"drover job stop -purge %s\".", job.ID, job.Type, job.ID), nil
}

package jobcheck

import "github.com/drover-io/drover/structs"

// Submitted reports every problem of a converted and canonicalised job in
// one *structs.ValidationError, or nil: the model's rules, the task
// configs and ports, the templates' functions, and limits (the zero
// JobLimits checks none, as a client without a server's configuration
// does).
func Submitted(job *structs.Job, limits structs.JobLimits) error {
	return structs.JoinValidation(job.Validate(), taskConfigProblems(job),
		taskPortProblems(job), templateProblems(job), job.CheckLimits(limits))
}

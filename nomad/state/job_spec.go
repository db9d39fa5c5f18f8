package state

import "github.com/drover-io/drover/structs"

// SpecChanged reports whether registering next over prev would be a new
// version of the job: whether it specifies a different job, as UpsertJob
// judges it. A dry run of a register uses it to version its candidate job
// as the store would.
func SpecChanged(prev, next *structs.Job) (bool, error) {
	return specChanged(prev, next)
}

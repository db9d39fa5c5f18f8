package periodic

import (
	"fmt"
	"time"

	"github.com/drover-io/drover/structs"
)

// ChildSeparator joins a periodic job's ID and a child's suffix.
const ChildSeparator = "/periodic-"

// ChildID is the ID of the child a periodic job launches at a
// time: "<parent>/periodic-<unix seconds>".
func ChildID(parentID string, at time.Time) string {
	return fmt.Sprintf("%s%s%d", parentID, ChildSeparator, at.Unix())
}

// DeriveChild returns the child a periodic job launches at a time: a
// copy of the job under the child's ID, with ParentID set and no periodic
// block of its own.
func DeriveChild(parent *structs.Job, at time.Time, now int64) *structs.Job {
	child := parent.Copy()
	child.ID = ChildID(parent.ID, at)
	child.Name = child.ID
	child.ParentID = parent.ID
	child.Periodic = nil
	child.Stop = false
	child.Status = structs.JobStatusPending
	child.StatusDescription = ""
	child.Stable = false
	child.Version = 0
	child.SubmitTime = now
	child.ResolveLaunchDeadline(now)
	child.CreateIndex, child.ModifyIndex, child.JobModifyIndex = 0, 0, 0
	return child
}

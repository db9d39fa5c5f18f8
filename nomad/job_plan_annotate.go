package nomad

import (
	"strconv"

	"github.com/drover-io/drover/scheduler"
	"github.com/drover-io/drover/structs"
)

// annotateDiff adds to a plan's diff what its changes force: each group's
// counts of updates, whether each changed task is updated in place or
// replaced, and whether a changed count creates or destroys allocations.
func annotateDiff(d *structs.JobDiff, old, next *structs.Job, updates map[string]*structs.DesiredUpdates) {
	for _, tgd := range d.TaskGroups {
		tgd.Updates = updates[tgd.Name].Updates()
		annotateCount(tgd.Fields)
		oldTG, nextTG := lookupGroup(old, tgd.Name), lookupGroup(next, tgd.Name)
		for _, td := range tgd.Tasks {
			td.Annotations = taskAnnotations(tgd.Type, td, oldTG, nextTG)
		}
	}
}

func lookupGroup(job *structs.Job, name string) *structs.TaskGroup {
	if job == nil {
		return nil
	}
	return job.LookupTaskGroup(name)
}

// taskAnnotations says what the change of one task forces.
func taskAnnotations(groupType string, td *structs.TaskDiff, oldTG, nextTG *structs.TaskGroup) []string {
	switch {
	case groupType == structs.DiffTypeAdded:
		return []string{structs.AnnotationForcesCreate}
	case groupType == structs.DiffTypeDeleted:
		return []string{structs.AnnotationForcesDestroy}
	case td.Type == structs.DiffTypeNone:
		return nil
	case oldTG == nil || nextTG == nil,
		scheduler.TaskUpdateForcesNewAlloc(oldTG.LookupTask(td.Name), nextTG.LookupTask(td.Name)):
		return []string{structs.AnnotationForcesDestructiveUpdate}
	}
	return []string{structs.AnnotationForcesInPlaceUpdate}
}

// annotateCount marks a changed group count with what it forces.
func annotateCount(fields []*structs.FieldDiff) {
	for _, f := range fields {
		if f.Name != "Count" || f.Type != structs.DiffTypeEdited {
			continue
		}
		old, errOld := strconv.Atoi(f.Old)
		next, errNext := strconv.Atoi(f.New)
		switch {
		case errOld != nil || errNext != nil:
		case next > old:
			f.Annotations = []string{structs.AnnotationForcesCreate}
		case next < old:
			f.Annotations = []string{structs.AnnotationForcesDestroy}
		}
	}
}

package structs

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Diff types: how a job, group, task, block or field changed from one
// version to the next.
const (
	DiffTypeNone    = "None"
	DiffTypeAdded   = "Added"
	DiffTypeDeleted = "Deleted"
	DiffTypeEdited  = "Edited"
)

// JobDiff is how one version of a job differs from another. Its JSON shape
// is the wire shape of api.JobDiff.
type JobDiff struct {
	Type       string
	ID         string
	Fields     []*FieldDiff
	Objects    []*ObjectDiff
	TaskGroups []*TaskGroupDiff
}

// TaskGroupDiff is how a task group changed. Updates, filled in by a plan,
// counts the allocations the change touches per kind of update ("create",
// "in-place update", ...).
type TaskGroupDiff struct {
	Type    string
	Name    string
	Fields  []*FieldDiff
	Objects []*ObjectDiff
	Tasks   []*TaskDiff
	Updates map[string]uint64
}

// TaskDiff is how a task changed. Annotations, filled in by a plan, say
// what the change forces ("forces in-place update", ...).
type TaskDiff struct {
	Type        string
	Name        string
	Fields      []*FieldDiff
	Objects     []*ObjectDiff
	Annotations []string
}

// FieldDiff is how one value changed. Values are strings: numbers in
// decimal, durations in nanoseconds, booleans as "true" or "false".
type FieldDiff struct {
	Type        string
	Name        string
	Old, New    string
	Annotations []string
}

// ObjectDiff is how a block (a restart policy, a constraint, a driver
// config) changed.
type ObjectDiff struct {
	Type    string
	Name    string
	Fields  []*FieldDiff
	Objects []*ObjectDiff
}

// Diff returns how other, the next version of the job, differs from j. Either
// may be nil: a job that is created or removed. Only what a user specifies
// is compared; what the server sets (status, version, indexes, submit
// time) is not.
//
// Scalar fields of the job, its groups and its tasks are listed only when
// they changed. Blocks are listed when they changed; when contextual is set,
// an edited block also lists its unchanged fields (type None), so that a
// reader sees the change in its context.
func (j *Job) Diff(other *Job, contextual bool) (*JobDiff, error) {
	if j == nil && other == nil {
		return nil, errors.New("diff job: both versions are nil")
	}
	if j != nil && other != nil && (j.ID != other.ID || j.Namespace != other.Namespace) {
		return nil, fmt.Errorf("diff job: cannot compare job %q in namespace %q with job %q in namespace %q",
			j.ID, j.Namespace, other.ID, other.Namespace)
	}
	d := &JobDiff{ID: pick(j, other).ID}
	d.Fields = fieldDiffs(j.diffFields(), other.diffFields(), false)
	d.Objects = appendObject(d.Objects, stringSetDiff("Datacenters", j.datacenters(), other.datacenters(), contextual))
	d.Objects = append(d.Objects, constraintDiffs(j.constraints(), other.constraints(), contextual)...)
	d.Objects = append(d.Objects, affinityDiffs(jobAffinities(j), jobAffinities(other), contextual)...)
	d.Objects = append(d.Objects, spreadDiffs(jobSpreads(j), jobSpreads(other), contextual)...)
	d.Objects = appendObject(d.Objects, objectDiff("Periodic", j.periodicFields(), other.periodicFields(), contextual))
	d.Objects = appendObject(d.Objects, objectDiff("ParameterizedJob", j.parameterizedFields(), other.parameterizedFields(), contextual))
	d.Objects = appendObject(d.Objects, objectDiff("ReschedulePolicy", j.rescheduleFields(), other.rescheduleFields(), contextual))
	sortObjects(d.Objects)

	for _, name := range unionNames(j.groupNames(), other.groupNames()) {
		tgd := j.lookupGroup(name).diff(other.lookupGroup(name), contextual)
		d.TaskGroups = append(d.TaskGroups, tgd)
	}
	d.Type = diffType(j == nil, other == nil, len(d.Fields) > 0 || len(d.Objects) > 0 || anyChanged(d.TaskGroups))
	return d, nil
}

// diff returns how other, the next version of the group, differs from tg;
// either may be nil.
func (tg *TaskGroup) diff(other *TaskGroup, contextual bool) *TaskGroupDiff {
	d := &TaskGroupDiff{Name: pick(tg, other).Name}
	d.Fields = fieldDiffs(tg.diffFields(), other.diffFields(), false)
	d.Objects = appendObject(d.Objects, objectDiff("RestartPolicy", tg.restartFields(), other.restartFields(), contextual))
	d.Objects = appendObject(d.Objects, objectDiff("ReschedulePolicy", tg.rescheduleFields(), other.rescheduleFields(), contextual))
	d.Objects = append(d.Objects, constraintDiffs(tg.constraints(), other.constraints(), contextual)...)
	d.Objects = append(d.Objects, affinityDiffs(groupAffinities(tg), groupAffinities(other), contextual)...)
	d.Objects = append(d.Objects, spreadDiffs(groupSpreads(tg), groupSpreads(other), contextual)...)
	sortObjects(d.Objects)

	for _, name := range unionNames(tg.taskNames(), other.taskNames()) {
		d.Tasks = append(d.Tasks, tg.lookupTask(name).diff(other.lookupTask(name), contextual))
	}
	d.Type = diffType(tg == nil, other == nil, len(d.Fields) > 0 || len(d.Objects) > 0 || anyChanged(d.Tasks))
	return d
}

// diff returns how other, the next version of the task, differs from t;
// either may be nil.
func (t *Task) diff(other *Task, contextual bool) *TaskDiff {
	d := &TaskDiff{Name: pick(t, other).Name}
	d.Fields = fieldDiffs(t.diffFields(), other.diffFields(), false)
	d.Objects = appendObject(d.Objects, objectDiff("Config", t.configFields(), other.configFields(), contextual))
	d.Objects = appendObject(d.Objects, objectDiff("Resources", t.resourceFields(), other.resourceFields(), contextual))
	d.Objects = appendObject(d.Objects, objectDiff("Lifecycle", t.lifecycleFields(), other.lifecycleFields(), contextual))
	d.Objects = appendObject(d.Objects, objectDiff("LogConfig", t.logConfigFields(), other.logConfigFields(), contextual))
	d.Objects = appendObject(d.Objects, objectDiff("RestartPolicy", t.restartFields(), other.restartFields(), contextual))
	d.Objects = append(d.Objects, constraintDiffs(t.constraints(), other.constraints(), contextual)...)
	d.Objects = append(d.Objects, affinityDiffs(taskAffinities(t), taskAffinities(other), contextual)...)
	d.Objects = append(d.Objects, objectSetDiff("Artifact", t.artifactFields(), other.artifactFields(), contextual)...)
	d.Objects = append(d.Objects, objectSetDiff("Template", t.templateFields(), other.templateFields(), contextual)...)
	sortObjects(d.Objects)
	d.Type = diffType(t == nil, other == nil, len(d.Fields) > 0 || len(d.Objects) > 0)
	return d
}

// pick returns whichever of old and next is not nil, next first.
func pick[T any](old, next *T) *T {
	if next != nil {
		return next
	}
	return old
}

// diffType is Added when there was nothing before, Deleted when there is
// nothing after, else Edited or None.
func diffType(added, deleted, changed bool) string {
	switch {
	case added:
		return DiffTypeAdded
	case deleted:
		return DiffTypeDeleted
	case changed:
		return DiffTypeEdited
	}
	return DiffTypeNone
}

func (d *TaskGroupDiff) changed() bool { return d.Type != DiffTypeNone }
func (d *TaskDiff) changed() bool      { return d.Type != DiffTypeNone }

// anyChanged reports whether any of the diffs is a change.
func anyChanged[T interface{ changed() bool }](diffs []T) bool {
	return slices.ContainsFunc(diffs, T.changed)
}

// fieldDiffs compares two sets of flattened fields (a nil map: nothing
// there) and returns the changes in name order, with the unchanged fields
// too when contextual.
func fieldDiffs(old, next map[string]string, contextual bool) []*FieldDiff {
	var out []*FieldDiff
	for _, name := range unionNames(sortedKeys(old), sortedKeys(next)) {
		o, inOld := old[name]
		n, inNext := next[name]
		switch {
		case !inOld:
			out = append(out, &FieldDiff{Type: DiffTypeAdded, Name: name, New: n})
		case !inNext:
			out = append(out, &FieldDiff{Type: DiffTypeDeleted, Name: name, Old: o})
		case o != n:
			out = append(out, &FieldDiff{Type: DiffTypeEdited, Name: name, Old: o, New: n})
		case contextual:
			out = append(out, &FieldDiff{Type: DiffTypeNone, Name: name, Old: o, New: n})
		}
	}
	return out
}

// objectDiff compares one block, given as flattened fields (nil: the block
// is absent), and returns nil when it did not change.
func objectDiff(name string, old, next map[string]string, contextual bool) *ObjectDiff {
	added, deleted := old == nil, next == nil
	if added && deleted || !added && !deleted && maps.Equal(old, next) {
		return nil
	}
	return &ObjectDiff{
		Type:   diffType(added, deleted, true),
		Name:   name,
		Fields: fieldDiffs(old, next, contextual),
	}
}

// objectSetDiff compares two lists of blocks whose order does not matter
// (constraints, artifacts): a block found in both is unchanged and left
// out; the others are Deleted or Added.
func objectSetDiff(name string, old, next []map[string]string, contextual bool) []*ObjectDiff {
	matched := make([]bool, len(old))
	var out []*ObjectDiff
	for _, n := range next {
		if i := unmatchedEqual(old, matched, n); i >= 0 {
			matched[i] = true
			continue
		}
		out = append(out, objectDiff(name, nil, n, contextual))
	}
	for i, o := range old {
		if !matched[i] {
			out = append(out, objectDiff(name, o, nil, contextual))
		}
	}
	return out
}

// unmatchedEqual returns the index of the first block of blocks equal to b
// and not matched yet, or -1.
func unmatchedEqual(blocks []map[string]string, matched []bool, b map[string]string) int {
	for i, o := range blocks {
		if !matched[i] && maps.Equal(o, b) {
			return i
		}
	}
	return -1
}

func constraintDiffs(old, next []map[string]string, contextual bool) []*ObjectDiff {
	return objectSetDiff("Constraint", old, next, contextual)
}

// stringSetDiff compares two sets of strings, such as datacenters, as one
// block whose fields all have the block's name.
func stringSetDiff(name string, old, next []string, contextual bool) *ObjectDiff {
	if len(old) == 0 && len(next) == 0 {
		return nil
	}
	var fields []*FieldDiff
	changed := false
	for _, v := range unionNames(sorted(old), sorted(next)) {
		inOld, inNext := slices.Contains(old, v), slices.Contains(next, v)
		switch {
		case !inOld:
			changed = true
			fields = append(fields, &FieldDiff{Type: DiffTypeAdded, Name: name, New: v})
		case !inNext:
			changed = true
			fields = append(fields, &FieldDiff{Type: DiffTypeDeleted, Name: name, Old: v})
		case contextual:
			fields = append(fields, &FieldDiff{Type: DiffTypeNone, Name: name, Old: v, New: v})
		}
	}
	if !changed {
		return nil
	}
	return &ObjectDiff{Type: diffType(len(old) == 0, len(next) == 0, true), Name: name, Fields: fields}
}

func appendObject(objects []*ObjectDiff, d *ObjectDiff) []*ObjectDiff {
	if d == nil {
		return objects
	}
	return append(objects, d)
}

// sortObjects orders blocks by name, keeping the order of blocks of the
// same name.
func sortObjects(objects []*ObjectDiff) {
	slices.SortStableFunc(objects, func(a, b *ObjectDiff) int { return strings.Compare(a.Name, b.Name) })
}

// unionNames merges two sorted lists of names into one sorted list without
// duplicates.
func unionNames(a, b []string) []string {
	out := append(slices.Clone(a), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

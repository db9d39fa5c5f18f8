package structs

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"unique"
)

// Allocations decoded from JSON each have a copy of everything: the
// allocations of one plan name the same evaluation, job, group and nodes,
// ask for the same resources and count the same available nodes, and a
// client's update of them has the same task event messages and details.
// A Dedup makes the equal parts of the allocations it is given share one
// copy, which is safe because what the store and the client hold is never
// modified in place (writers change a Copy, which is deep). Over a plan of
// 5,000 allocations of one group that is a kilobyte per allocation.
//
// A Dedup lives for one batch (a raft entry, a pull of allocations), so
// what it remembers is bounded by the batch. Its zero value is ready to
// use; it is not safe for concurrent use.
type Dedup struct {
	resources     map[Resources]*Resources
	taskResources map[string]map[string]*Resources
	counts        map[string]map[string]int
	details       map[string]map[string]string
	key           strings.Builder
}

// String returns the canonical copy of s: strings are interned process
// wide (package unique), not only within the batch, because a server
// takes its clients' updates a few allocations at a time and a client
// pulls its allocations as they are placed. The interned copy is freed
// once no one holds it.
func (d *Dedup) String(s string) string {
	if s == "" {
		return ""
	}
	return unique.Make(s).Value()
}

// Allocation makes a's parts share what earlier allocations hold equal:
// its strings but its own ID and name, its resources, its metric's node
// counts and score names, and its task states' event strings and details.
// It modifies a, which must not be shared yet; its Job is left alone
// (JobVersions shares jobs).
func (d *Dedup) Allocation(a *Allocation) {
	if a == nil {
		return
	}
	for _, s := range []*string{
		&a.Namespace, &a.EvalID, &a.NodeID, &a.NodeName, &a.JobID, &a.TaskGroup,
		&a.DesiredStatus, &a.DesiredDescription, &a.ClientStatus, &a.ClientDescription,
	} {
		*s = d.String(*s)
	}
	a.Resources = d.resourcesOf(a.Resources)
	a.TaskResources = d.taskResourcesOf(a.TaskResources)
	d.metric(a.Metrics)
	d.TaskStates(a.TaskStates)
}

// TaskStates makes the states' event strings and details share what
// earlier ones hold equal. It modifies the states, which must not be
// shared yet.
func (d *Dedup) TaskStates(states map[string]*TaskState) {
	for _, ts := range states {
		if ts == nil {
			continue
		}
		ts.State = d.String(ts.State)
		for _, ev := range ts.Events {
			d.taskEvent(ev)
		}
	}
}

func (d *Dedup) taskEvent(ev *TaskEvent) {
	if ev == nil {
		return
	}
	for _, s := range []*string{
		&ev.Type, &ev.DisplayMessage, &ev.Message, &ev.RestartReason, &ev.SetupError,
		&ev.DriverError, &ev.DriverMessage, &ev.KillReason, &ev.KillError, &ev.DownloadError,
		&ev.ValidationError, &ev.FailedSibling, &ev.TaskSignalReason, &ev.TaskSignal,
	} {
		*s = d.String(*s)
	}
	ev.Details = d.detailsOf(ev.Details)
}

func (d *Dedup) detailsOf(m map[string]string) map[string]string {
	return dedupMap(d, &d.details, m, func(v string) string { return v })
}

func (d *Dedup) metric(m *AllocMetric) {
	if m == nil {
		return
	}
	m.NodePool = d.String(m.NodePool)
	itoa := func(v int) string { return strconv.Itoa(v) }
	for _, counts := range []*map[string]int{
		&m.NodesAvailable, &m.ClassFiltered, &m.ConstraintFiltered, &m.ClassExhausted, &m.DimensionExhausted,
	} {
		*counts = dedupMap(d, &d.counts, *counts, itoa)
	}
	// Scores differ from one placement to the next; their names (a
	// node's ID and a scorer) do not.
	if len(m.Scores) > 0 {
		scores := make(map[string]float64, len(m.Scores))
		for k, v := range m.Scores {
			scores[d.String(k)] = v
		}
		m.Scores = scores
	}
}

func (d *Dedup) resourcesOf(r *Resources) *Resources {
	if r == nil {
		return nil
	}
	if c, ok := d.resources[*r]; ok {
		return c
	}
	if d.resources == nil {
		d.resources = make(map[Resources]*Resources)
	}
	d.resources[*r] = r
	return r
}

func (d *Dedup) taskResourcesOf(m map[string]*Resources) map[string]*Resources {
	for k, r := range m {
		m[k] = d.resourcesOf(r)
	}
	return dedupMap(d, &d.taskResources, m, func(r *Resources) string {
		if r == nil {
			return "nil"
		}
		return strconv.Itoa(r.CPU) + "," + strconv.Itoa(r.Cores) + "," + strconv.Itoa(r.MemoryMB) + "," +
			strconv.Itoa(r.MemoryMaxMB) + "," + strconv.Itoa(r.DiskMB)
	})
}

// dedupMap returns the map handed out first of those equal to m, or m,
// which it hands out from then on. nil stays nil and an empty map stays
// empty: the two differ on the wire. A map's content is told by its
// sorted keys and their values written with format.
func dedupMap[V any](d *Dedup, seen *map[string]map[string]V, m map[string]V, format func(V) string) map[string]V {
	if m == nil {
		return nil
	}
	key := mapKey(&d.key, m, format)
	if c, ok := (*seen)[key]; ok {
		return c
	}
	if *seen == nil {
		*seen = make(map[string]map[string]V)
	}
	(*seen)[key] = m
	return m
}

// mapKey writes m's content as a string, each key and value preceded by
// its length so that no two contents write the same.
func mapKey[V any](b *strings.Builder, m map[string]V, format func(V) string) string {
	b.Reset()
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := format(m[k])
		b.WriteString(strconv.Itoa(len(k)))
		b.WriteByte(':')
		b.WriteString(k)
		b.WriteString(strconv.Itoa(len(v)))
		b.WriteByte(':')
		b.WriteString(v)
	}
	return b.String()
}

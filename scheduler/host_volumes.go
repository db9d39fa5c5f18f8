package scheduler

import (
	"slices"
	"strings"

	"github.com/drover-io/drover/structs"
)

// reasonMissingHostVolumes starts the metric reason of a node that lacks a
// host volume the group asks for, in Nomad's words; the reason goes on to
// name the volumes ("missing compatible host volumes: data").
const reasonMissingHostVolumes = "missing compatible host volumes"

// hostVolumeChecker holds the group's host volume requests. A node is
// compatible when it has a host volume of each request's source and,
// for a writable request, that volume is writable too. Requests that are
// the same for every allocation are checked once per node (with the
// group's other static checks); per_alloc ones name a volume per
// allocation index and are checked for each placement.
type hostVolumeChecker struct {
	shared   []*structs.VolumeRequest
	perAlloc []*structs.VolumeRequest
}

func newHostVolumeChecker(tg *structs.TaskGroup) hostVolumeChecker {
	var c hostVolumeChecker
	for _, name := range sortedVolumeNames(tg.Volumes) {
		req := tg.Volumes[name]
		if req == nil || req.Type != structs.VolumeTypeHost {
			continue // validation refuses them; nothing to place by
		}
		if req.PerAlloc {
			c.perAlloc = append(c.perAlloc, req)
		} else {
			c.shared = append(c.shared, req)
		}
	}
	return c
}

func sortedVolumeNames(m map[string]*structs.VolumeRequest) []string {
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// static checks the requests every allocation of the group makes.
func (c hostVolumeChecker) static(node *structs.Node) (bool, string) {
	return missingHostVolumes(node, c.shared, 0)
}

// forIndex checks the per_alloc requests of the allocation with the given
// index.
func (c hostVolumeChecker) forIndex(node *structs.Node, index uint) (bool, string) {
	return missingHostVolumes(node, c.perAlloc, index)
}

func missingHostVolumes(node *structs.Node, reqs []*structs.VolumeRequest, index uint) (bool, string) {
	var missing []string
	for _, req := range reqs {
		source := req.SourceFor(index)
		hv := node.HostVolumes[source]
		if hv == nil || (hv.ReadOnly && !req.ReadOnly) {
			missing = append(missing, source)
		}
	}
	if len(missing) > 0 {
		return false, reasonMissingHostVolumes + ": " + strings.Join(missing, ", ")
	}
	return true, ""
}

// volumesChanged reports whether the group's volumes differ between two
// versions: the allocation's mounts are made as its tasks start, so a
// change needs a new allocation.
func volumesChanged(old, next *structs.TaskGroup) bool {
	if len(old.Volumes) != len(next.Volumes) {
		return true
	}
	for name, o := range old.Volumes {
		n, ok := next.Volumes[name]
		if !ok || (o == nil) != (n == nil) {
			return true
		}
		if o != nil && (o.Type != n.Type || o.Source != n.Source || o.ReadOnly != n.ReadOnly || o.PerAlloc != n.PerAlloc) {
			return true
		}
	}
	return false
}

// volumeMountsChanged reports whether a task's volume mounts differ.
func volumeMountsChanged(old, next *structs.Task) bool {
	return !slices.EqualFunc(old.VolumeMounts, next.VolumeMounts, func(a, b *structs.VolumeMount) bool {
		return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
	})
}

package scheduler

import (
	"fmt"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

func withHostVolume(job *structs.Job, req *structs.VolumeRequest) *structs.Job {
	job.TaskGroups[0].Volumes = map[string]*structs.VolumeRequest{req.Name: req}
	return job
}

// rerunJob stores a changed copy of the job and processes its
// registration.
func rerunJob(h *harness, job *structs.Job, change func(*structs.Job)) *structs.Job {
	next := job.Copy()
	change(next)
	return h.runJob(next)
}

func TestHostVolumes_PlacedOnlyWhereTheVolumeIs(t *testing.T) {
	for _, jobType := range []string{structs.JobTypeBatch, structs.JobTypeService} {
		t.Run(jobType, func(t *testing.T) {
			h := newHarness(t)
			nodes := h.addNodes(10, func(i int, n *structs.Node) {
				if i%3 == 0 {
					n.HostVolumes = map[string]*structs.ClientHostVolume{"data": {Path: "/srv/data"}}
				}
			})
			has := map[string]bool{}
			for i, n := range nodes {
				has[n.ID] = i%3 == 0
			}
			job := withHostVolume(mockJob(jobType, 8), &structs.VolumeRequest{Name: "data", Type: "host", Source: "data"})
			placed := placedNodes(t, h, job)
			total := 0
			for nodeID, n := range placed {
				must.True(t, has[nodeID], must.Sprintf("placed on %s, which has no volume", nodeID))
				total += n
			}
			must.Eq(t, 8, total)
		})
	}
}

func TestHostVolumes_MissingVolumeInTheMetric(t *testing.T) {
	h := newHarness(t)
	h.addNodes(4, func(i int, n *structs.Node) {
		if i < 2 {
			// A read-only volume does not serve a writable request.
			n.HostVolumes = map[string]*structs.ClientHostVolume{"data": {Path: "/srv/data", ReadOnly: true}}
		}
	})
	job := h.runJob(withHostVolume(mockJob(structs.JobTypeBatch, 2), &structs.VolumeRequest{Name: "in", Type: "host", Source: "data"}))
	must.SliceEmpty(t, h.allocs(job))
	m := h.lastUpdate().FailedTGAllocs["g"]
	must.NotNil(t, m)
	must.Eq(t, map[string]int{"missing compatible host volumes: data": 4}, m.ConstraintFiltered)

	// Asked for read-only, the read-only volumes do.
	job = rerunJob(h, job, func(j *structs.Job) { j.TaskGroups[0].Volumes["in"].ReadOnly = true })
	must.SliceLen(t, 2, h.liveAllocs(job))
}

func TestHostVolumes_PerAlloc(t *testing.T) {
	h := newHarness(t)
	nodes := h.addNodes(3, func(i int, n *structs.Node) {
		n.HostVolumes = map[string]*structs.ClientHostVolume{fmt.Sprintf("disk[%d]", i): {Path: fmt.Sprintf("/srv/disk%d", i)}}
	})
	job := h.runJob(withHostVolume(mockJob(structs.JobTypeBatch, 3), &structs.VolumeRequest{Name: "d", Type: "host", Source: "disk", PerAlloc: true}))
	allocs := h.liveAllocs(job)
	must.SliceLen(t, 3, allocs)
	for _, a := range allocs {
		must.Eq(t, nodes[a.Index()].ID, a.NodeID, must.Sprintf("%s", a.Name))
	}

	// A fourth allocation has no disk[3] anywhere.
	job = rerunJob(h, job, func(j *structs.Job) { j.TaskGroups[0].Count = 4 })
	must.SliceLen(t, 3, h.liveAllocs(job))
	m := h.lastUpdate().FailedTGAllocs["g"]
	must.NotNil(t, m)
	must.Eq(t, map[string]int{"missing compatible host volumes: disk[3]": 3}, m.ConstraintFiltered)
}

func TestHostVolumes_SourceTricksFindNothing(t *testing.T) {
	// A source is a name the operator gave, never a path: one that looks
	// like a path matches no volume.
	for _, source := range []string{"/srv/data", "../data", "data/", "Data"} {
		h := newHarness(t)
		h.addNodes(2, func(_ int, n *structs.Node) {
			n.HostVolumes = map[string]*structs.ClientHostVolume{"data": {Path: "/srv/data"}}
		})
		job := h.runJob(withHostVolume(mockJob(structs.JobTypeBatch, 1), &structs.VolumeRequest{Name: "d", Type: "host", Source: source}))
		must.SliceEmpty(t, h.allocs(job), must.Sprint(source))
	}
}

func TestHostVolumes_SystemJob(t *testing.T) {
	h := newHarness(t)
	nodes := h.addNodes(4, func(i int, n *structs.Node) {
		if i%2 == 1 {
			n.HostVolumes = map[string]*structs.ClientHostVolume{"data": {Path: "/srv/data"}}
		}
	})
	job := h.runJob(withHostVolume(mockJob(structs.JobTypeSystem, 1), &structs.VolumeRequest{Name: "d", Type: "host", Source: "data"}))
	allocs := h.liveAllocs(job)
	must.SliceLen(t, 2, allocs)
	for _, a := range allocs {
		must.True(t, a.NodeID == nodes[1].ID || a.NodeID == nodes[3].ID)
	}
}

func TestHostVolumes_ChangeReplacesTheAllocation(t *testing.T) {
	h := newHarness(t)
	h.addNodes(1, func(_ int, n *structs.Node) {
		n.HostVolumes = map[string]*structs.ClientHostVolume{"a": {Path: "/a"}, "b": {Path: "/b"}}
	})
	job := h.runJob(withHostVolume(mockJob(structs.JobTypeService, 1), &structs.VolumeRequest{Name: "d", Type: "host", Source: "a"}))
	first := h.liveAllocs(job)
	must.SliceLen(t, 1, first)
	job = rerunJob(h, job, func(j *structs.Job) { j.TaskGroups[0].Volumes["d"].Source = "b" })
	now := h.liveAllocs(job)
	must.SliceLen(t, 1, now)
	must.NotEq(t, first[0].ID, now[0].ID)

	job = rerunJob(h, job, func(j *structs.Job) {
		j.TaskGroups[0].Tasks[0].VolumeMounts = []*structs.VolumeMount{{Volume: "d", Destination: "/d"}}
	})
	again := h.liveAllocs(job)
	must.SliceLen(t, 1, again)
	must.NotEq(t, now[0].ID, again[0].ID)
}

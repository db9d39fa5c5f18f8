package scheduler

import (
	"fmt"
	"testing"

	"github.com/drover-io/drover/structs"
	"github.com/shoenig/test/must"
)

// placedNodes runs job on the harness and returns the nodes its live
// allocations landed on.
func placedNodes(t *testing.T, h *harness, job *structs.Job) map[string]int {
	t.Helper()
	job = h.runJob(job)
	out := make(map[string]int)
	for _, a := range h.liveAllocs(job) {
		out[a.NodeID]++
	}
	return out
}

func TestFeasibility_constraintFiltering(t *testing.T) {
	for _, jobType := range []string{structs.JobTypeBatch, structs.JobTypeService} {
		t.Run(jobType, func(t *testing.T) { testConstraintFiltering(t, jobType) })
	}
}

func testConstraintFiltering(t *testing.T, jobType string) {
	h := newHarness(t)
	nodes := h.addNodes(100, func(i int, n *structs.Node) {
		if i%2 == 1 {
			n.Attributes["kernel.name"] = "windows"
		}
	})
	linux := make(map[string]bool)
	for i, n := range nodes {
		linux[n.ID] = i%2 == 0
	}
	job := mockJob(jobType, 40)
	job.Constraints = []*structs.Constraint{{LTarget: "${attr.kernel.name}", RTarget: "linux", Operand: "="}}
	placed := placedNodes(t, h, job)
	for nodeID := range placed {
		must.True(t, linux[nodeID])
	}
	total := 0
	for _, n := range placed {
		total += n
	}
	must.Eq(t, 40, total)
	must.MapEmpty(t, h.lastUpdate().FailedTGAllocs)
}

func TestFeasibility_noNodeMeetsConstraint(t *testing.T) {
	h := newHarness(t)
	h.addNodes(30, func(i int, n *structs.Node) { n.NodeClass = fmt.Sprintf("c%d", i%3) })
	job := mockJob(structs.JobTypeBatch, 5)
	job.TaskGroups[0].Tasks[0].Constraints = []*structs.Constraint{{LTarget: "${attr.kernel.name}", RTarget: "plan9", Operand: "="}}
	job = h.runJob(job)

	must.SliceEmpty(t, h.allocs(job))
	eval := h.lastUpdate()
	must.Eq(t, map[string]int{"g": 5}, eval.QueuedAllocations)
	m := eval.FailedTGAllocs["g"]
	must.NotNil(t, m)
	must.Eq(t, 30, m.NodesEvaluated)
	must.Eq(t, 30, m.NodesFiltered)
	must.Eq(t, map[string]int{"${attr.kernel.name} = plan9": 30}, m.ConstraintFiltered)
	must.Eq(t, map[string]int{"c0": 10, "c1": 10, "c2": 10}, m.ClassFiltered)
	must.Eq(t, 4, m.CoalescedFailures)
	must.Eq(t, 30, m.NodesInPool)
	must.Eq(t, structs.DefaultNodePool, m.NodePool)
	must.SliceLen(t, 1, h.createdEvals(structs.EvalTriggerQueuedAllocs))
}

func TestFeasibility_operators(t *testing.T) {
	// Nodes 0..9; node i has os.version "1.<i>.0", meta.idx i, and meta.even
	// set on even nodes; node 3's version is a prerelease.
	setup := func(i int, n *structs.Node) {
		n.Attributes["os.version"] = fmt.Sprintf("1.%d.0", i)
		if i == 3 {
			n.Attributes["os.version"] = "1.3.0-beta.1"
		}
		n.Meta["idx"] = fmt.Sprint(i)
		if i%2 == 0 {
			n.Meta["even"] = "yes"
		}
		n.Meta["tags"] = fmt.Sprintf("t%d,common", i)
		n.NodeClass = fmt.Sprintf("class-%d", i)
	}
	cases := []struct {
		name string
		c    *structs.Constraint
		want []int
	}{
		{"equal", &structs.Constraint{LTarget: "${meta.idx}", RTarget: "4", Operand: "="}, []int{4}},
		{"not equal", &structs.Constraint{LTarget: "${meta.idx}", RTarget: "4", Operand: "!="}, []int{0, 1, 2, 3, 5, 6, 7, 8, 9}},
		{"not equal missing", &structs.Constraint{LTarget: "${meta.even}", RTarget: "yes", Operand: "!="}, []int{1, 3, 5, 7, 9}},
		{"less numeric", &structs.Constraint{LTarget: "${meta.idx}", RTarget: "3", Operand: "<"}, []int{0, 1, 2}},
		{"greater or equal", &structs.Constraint{LTarget: "${meta.idx}", RTarget: "8", Operand: ">="}, []int{8, 9}},
		{"regexp", &structs.Constraint{LTarget: "${node.unique.name}", RTarget: "^node-000[1-3]$", Operand: structs.ConstraintRegex}, []int{1, 2, 3}},
		{"version range", &structs.Constraint{LTarget: "${attr.os.version}", RTarget: ">= 1.2, < 1.6", Operand: structs.ConstraintVersion}, []int{2, 4, 5}},
		{"version pessimistic", &structs.Constraint{LTarget: "${attr.os.version}", RTarget: "~> 1.7.0", Operand: structs.ConstraintVersion}, []int{7}},
		{"version pessimistic minor", &structs.Constraint{LTarget: "${attr.os.version}", RTarget: "~> 1.7", Operand: structs.ConstraintVersion}, []int{7, 8, 9}},
		{"semver range", &structs.Constraint{LTarget: "${attr.os.version}", RTarget: ">= 1.2.0, < 1.6.0", Operand: structs.ConstraintSemver}, []int{2, 3, 4, 5}},
		{"is_set", &structs.Constraint{LTarget: "${meta.even}", Operand: structs.ConstraintAttrIsSet}, []int{0, 2, 4, 6, 8}},
		{"is_not_set", &structs.Constraint{LTarget: "${meta.even}", Operand: structs.ConstraintAttrIsNotSet}, []int{1, 3, 5, 7, 9}},
		{"set_contains", &structs.Constraint{LTarget: "${meta.tags}", RTarget: "common,t6", Operand: structs.ConstraintSetContains}, []int{6}},
		{"set_contains_any", &structs.Constraint{LTarget: "${meta.tags}", RTarget: "t1,t2", Operand: structs.ConstraintSetContainsAny}, []int{1, 2}},
		{"node class", &structs.Constraint{LTarget: "${node.class}", RTarget: "class-5", Operand: "="}, []int{5}},
		{"unknown target", &structs.Constraint{LTarget: "${nope.x}", RTarget: "1", Operand: "="}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			nodes := h.addNodes(10, setup)
			index := make(map[string]int)
			for i, n := range nodes {
				index[n.ID] = i
			}
			// 80 allocations fill all ten nodes: every feasible node gets some.
			job := mockJob(structs.JobTypeBatch, 80)
			job.TaskGroups[0].Constraints = []*structs.Constraint{tc.c}
			got := make(map[int]bool)
			for nodeID := range placedNodes(t, h, job) {
				got[index[nodeID]] = true
			}
			want := make(map[int]bool)
			for _, i := range tc.want {
				want[i] = true
			}
			must.Eq(t, want, got)
			if len(tc.want) < 10 {
				m := h.lastUpdate().FailedTGAllocs["g"]
				must.NotNil(t, m)
				must.Eq(t, 10-len(tc.want), m.ConstraintFiltered[constraintReason(tc.c)])
			}
		})
	}
}

func TestFeasibility_datacenterWildcard(t *testing.T) {
	h := newHarness(t)
	dcs := []string{"dc1", "dc2", "dc10", "east", "xdc1"}
	nodes := h.addNodes(25, func(i int, n *structs.Node) { n.Datacenter = dcs[i%len(dcs)] })
	dcOf := make(map[string]string)
	for _, n := range nodes {
		dcOf[n.ID] = n.Datacenter
	}
	job := mockJob(structs.JobTypeBatch, 200) // more than fits: every node takes some
	job.Datacenters = []string{"dc*"}
	placed := placedNodes(t, h, job)
	seen := make(map[string]bool)
	for nodeID := range placed {
		seen[dcOf[nodeID]] = true
	}
	must.Eq(t, map[string]bool{"dc1": true, "dc2": true, "dc10": true}, seen)
	for _, a := range h.allocs(&structs.Job{Namespace: job.Namespace, ID: job.ID}) {
		must.Eq(t, map[string]int{"dc1": 5, "dc2": 5, "dc10": 5}, a.Metrics.NodesAvailable)
	}
}

func TestFeasibility_nodePool(t *testing.T) {
	h := newHarness(t)
	nodes := h.addNodes(20, func(i int, n *structs.Node) {
		if i < 5 {
			n.NodePool = "gpu"
		}
	})
	pool := make(map[string]string)
	for _, n := range nodes {
		pool[n.ID] = n.NodePool
	}
	job := mockJob(structs.JobTypeBatch, 50)
	job.NodePool = "gpu"
	for nodeID := range placedNodes(t, h, job) {
		must.Eq(t, "gpu", pool[nodeID])
	}
	must.Eq(t, 5, h.lastUpdate().FailedTGAllocs["g"].NodesInPool)

	def := mockJob(structs.JobTypeBatch, 100)
	for nodeID := range placedNodes(t, h, def) {
		must.Eq(t, structs.DefaultNodePool, pool[nodeID])
	}

	// The "all" pool holds every node.
	h = newHarness(t)
	h.addNodes(20, func(i int, n *structs.Node) {
		if i < 5 {
			n.NodePool = "gpu"
		}
	})
	all := mockJob(structs.JobTypeBatch, 20)
	all.NodePool = nodePoolAll
	all.TaskGroups[0].Tasks[0].Resources = &structs.Resources{CPU: 100, MemoryMB: 64}
	all.Constraints = []*structs.Constraint{{Operand: structs.ConstraintDistinctHosts}}
	must.MapLen(t, 20, placedNodes(t, h, all))
}

func TestFeasibility_missingDrivers(t *testing.T) {
	h := newHarness(t)
	h.addNodes(12, func(i int, n *structs.Node) {
		switch i % 4 {
		case 0: // not detected
			n.Drivers["docker"] = &structs.DriverInfo{}
		case 1: // detected but unhealthy
			n.Drivers["docker"] = &structs.DriverInfo{Detected: true}
		case 2: // healthy
			n.Drivers["docker"] = &structs.DriverInfo{Detected: true, Healthy: true}
		case 3: // fingerprinted only as an attribute
			n.Attributes["driver.docker"] = "1"
		}
	})
	job := mockJob(structs.JobTypeBatch, 100)
	job.TaskGroups[0].Tasks[0].Driver = "docker"
	must.MapLen(t, 6, placedNodes(t, h, job))
	m := h.lastUpdate().FailedTGAllocs["g"]
	must.NotNil(t, m)
	must.Eq(t, map[string]int{"missing drivers: docker": 6}, m.ConstraintFiltered)
	must.Eq(t, 6, m.NodesExhausted)
}

// TestFeasibility_missingDriversNamed names, per node, every driver of
// the group the node lacks.
func TestFeasibility_missingDriversNamed(t *testing.T) {
	h := newHarness(t)
	h.addNodes(3, func(i int, n *structs.Node) {
		if i == 0 {
			n.Drivers["docker"] = &structs.DriverInfo{Detected: true, Healthy: true}
		}
	})
	job := mockJob(structs.JobTypeBatch, 1)
	tg := job.TaskGroups[0]
	tg.Tasks[0].Driver = "docker"
	second := *tg.Tasks[0]
	second.Name, second.Driver = "second", "podman"
	tg.Tasks = append(tg.Tasks, &second)
	must.MapLen(t, 0, placedNodes(t, h, job))
	m := h.lastUpdate().FailedTGAllocs["g"]
	must.NotNil(t, m)
	must.Eq(t, map[string]int{"missing drivers: podman": 1, "missing drivers: docker, podman": 2}, m.ConstraintFiltered)
}

func TestFeasibility_unusableNodes(t *testing.T) {
	h := newHarness(t)
	nodes := h.addNodes(8, nil)
	h.setNodeStatus(nodes[0], structs.NodeStatusDown)
	h.setNodeStatus(nodes[1], structs.NodeStatusInit)
	must.NoError(t, h.store.UpdateNodeEligibility(h.nextIndex(), nodes[2].ID, structs.NodeSchedulingIneligible, 1))
	must.NoError(t, h.store.UpdateNodeDrain(h.nextIndex(), nodes[3].ID, &structs.DrainStrategy{}, false, 1))
	placed := placedNodes(t, h, mockJob(structs.JobTypeBatch, 100))
	must.MapLen(t, 4, placed)
	for _, n := range nodes[:4] {
		must.MapNotContainsKey(t, placed, n.ID)
	}
	must.Eq(t, map[string]int{"dc1": 4}, h.lastUpdate().FailedTGAllocs["g"].NodesAvailable)
}

func TestFeasibility_distinctHosts(t *testing.T) {
	h := newHarness(t)
	h.addNodes(3, nil)
	job := mockJob(structs.JobTypeBatch, 5)
	job.Constraints = []*structs.Constraint{{Operand: structs.ConstraintDistinctHosts}}
	placed := placedNodes(t, h, job)
	must.MapLen(t, 3, placed)
	for _, n := range placed {
		must.Eq(t, 1, n)
	}
	m := h.lastUpdate().FailedTGAllocs["g"]
	must.Eq(t, map[string]int{reasonDistinctHosts: 3}, m.ConstraintFiltered)
	must.Eq(t, map[string]int{"g": 2}, h.lastUpdate().QueuedAllocations)
}

func TestFeasibility_distinctHostsScopes(t *testing.T) {
	twoGroups := func(atJob bool) *structs.Job {
		job := mockJob(structs.JobTypeBatch, 2)
		other := job.TaskGroups[0].Copy()
		other.Name = "other"
		job.TaskGroups = append(job.TaskGroups, other)
		distinct := []*structs.Constraint{{Operand: structs.ConstraintDistinctHosts, RTarget: "true"}}
		if atJob {
			job.Constraints = distinct
		} else {
			for _, tg := range job.TaskGroups {
				tg.Constraints = distinct
			}
		}
		return job
	}
	// Job level: no two allocations of the job share a node.
	h := newHarness(t)
	h.addNodes(3, nil)
	must.MapLen(t, 3, placedNodes(t, h, twoGroups(true)))
	must.Eq(t, 1, h.lastUpdate().QueuedAllocations["g"]+h.lastUpdate().QueuedAllocations["other"])

	// Group level: groups may share nodes, allocations of one group may not.
	h = newHarness(t)
	h.addNodes(2, nil)
	placed := placedNodes(t, h, twoGroups(false))
	must.MapLen(t, 2, placed)
	for _, n := range placed {
		must.Eq(t, 2, n)
	}
	must.MapEmpty(t, h.lastUpdate().FailedTGAllocs)

	// "false" turns it off.
	h = newHarness(t)
	h.addNodes(1, nil)
	job := mockJob(structs.JobTypeBatch, 3)
	job.Constraints = []*structs.Constraint{{Operand: structs.ConstraintDistinctHosts, RTarget: "false"}}
	placed = placedNodes(t, h, job)
	must.MapLen(t, 1, placed)
}

func TestFeasibility_distinctProperty(t *testing.T) {
	h := newHarness(t)
	nodes := h.addNodes(12, nil) // racks r0..r3
	rack := make(map[string]string)
	for _, n := range nodes {
		rack[n.ID] = n.Meta["rack"]
	}
	job := mockJob(structs.JobTypeBatch, 10)
	job.TaskGroups[0].Constraints = []*structs.Constraint{{LTarget: "${meta.rack}", RTarget: "2", Operand: structs.ConstraintDistinctProperty}}
	job = h.runJob(job)
	perRack := make(map[string]int)
	for _, a := range h.liveAllocs(job) {
		perRack[rack[a.NodeID]]++
	}
	must.Eq(t, map[string]int{"r0": 2, "r1": 2, "r2": 2, "r3": 2}, perRack)
	must.Eq(t, map[string]int{"g": 2}, h.lastUpdate().QueuedAllocations)

	// The count survives evaluations: stored allocations are counted.
	h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
	must.SliceLen(t, 8, h.liveAllocs(job))
}

// TestFeasibility_missingDriverSaysWhy: a node that knows a driver but
// cannot offer it (exec2 without the kernel's Landlock) says why in the
// placement failure; a disabled driver is just missing.
func TestFeasibility_missingDriverSaysWhy(t *testing.T) {
	h := newHarness(t)
	h.addNodes(2, func(i int, n *structs.Node) {
		n.Drivers["exec2"] = &structs.DriverInfo{HealthDescription: "the kernel has no Landlock LSM"}
		if i == 1 {
			n.Drivers["exec2"].HealthDescription = "disabled"
		}
	})
	job := mockJob(structs.JobTypeBatch, 1)
	job.TaskGroups[0].Tasks[0].Driver = "exec2"
	must.MapLen(t, 0, placedNodes(t, h, job))
	m := h.lastUpdate().FailedTGAllocs["g"]
	must.NotNil(t, m)
	must.Eq(t, map[string]int{"missing drivers: exec2 (the kernel has no Landlock LSM)": 1, "missing drivers: exec2": 1}, m.ConstraintFiltered)
}

package command

import (
	"strings"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

func TestNodeStatus_ListAndOne(t *testing.T) {
	a, addr := testAgent(t)

	// Without nodes, like Nomad, the list prints nothing at all.
	code, out, errOut := runCLI(t, "", "node", "status", "-address", addr)
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.Eq(t, "", out)

	registerTestNode(t, a, testNodeID, "worker-1", structs.NodeSchedulingIneligible)
	registerTestNode(t, a, testNodeID2, "worker-2", structs.NodeSchedulingIneligible)
	evalID := runDetached(t, addr, "testdata/maxrun.hcl")
	placeTestAlloc(t, a, testAllocID, "maxrun", evalID, testNodeID)

	code, out, _ = runCLI(t, "", "node", "status", "-address", addr)
	must.Eq(t, 0, code)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	must.Len(t, 3, lines)
	must.Eq(t, []string{"ID", "Node", "Pool", "DC", "Name", "Class", "Drain", "Eligibility", "Status"}, strings.Fields(lines[0]))
	must.StrContains(t, out, "\nf5a9b8c7  default    dc1  worker-1  <none>  false  ineligible   ready\n")

	code, _, errOut = runCLI(t, "", "node", "status", "-address", addr, "f5a9")
	must.Eq(t, 1, code)
	must.StrHasPrefix(t, "Prefix matched multiple nodes\n\n", errOut)
	must.StrContains(t, errOut, "worker-2")

	code, out, errOut = runCLI(t, "", "node", "status", "-address", addr, "f5a9b")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrHasPrefix(t, `ID           = f5a9b8c7
Name         = worker-1
Node Pool    = default
Class        = <none>
DC           = dc1
Drain        = false
Eligibility  = ineligible
Status       = ready
Drivers      = raw_exec
Host Volumes = <none>

Allocated Resources
CPU           Memory           Disk
200/4000 MHz  300 MiB/8.0 GiB  150 MiB/97.7 GiB

Allocations
ID        Node ID   Task Group  Version  Desired  Status   Created  Modified  Deadline
0a1b2c3d  f5a9b8c7  maxrun      0        run      running  `, out)
	must.StrNotContains(t, out, "Attributes")

	code, out, _ = runCLI(t, "", "node", "status", "-address", addr, "-verbose", testNodeID)
	must.Eq(t, 0, code)
	must.StrContains(t, out, "ID           = "+testNodeID+"\n")
	must.StrContains(t, out, "\nHost Volumes\n<none>\n")
	must.StrContains(t, out, "\nAttributes\nkernel.name   = linux\nnomad.version = 0.1.0\n")
	must.StrContains(t, out, "\nMeta\nrack = r1")

	code, _, errOut = runCLI(t, "", "node", "status", "-address", addr, "ffff")
	must.Eq(t, 1, code)
	must.Eq(t, "No node(s) with prefix or id \"ffff\" found\n", errOut)
}

func TestAllocatedResources_CountsOnlyLiveAllocations(t *testing.T) {
	node := &api.Node{
		NodeResources: &api.NodeResources{
			Cpu:    api.NodeCpuResources{CpuShares: 4000},
			Memory: api.NodeMemoryResources{MemoryMB: 2048},
			Disk:   api.NodeDiskResources{DiskMB: 1000},
		},
		ReservedResources: &api.NodeReservedResources{
			Cpu:    api.NodeReservedCpuResources{CpuShares: 500},
			Memory: api.NodeReservedMemoryResources{MemoryMB: 1024},
		},
	}
	res := func(cpu, mem, disk int) *api.Resources {
		return &api.Resources{CPU: &cpu, MemoryMB: &mem, DiskMB: &disk}
	}
	allocs := []*api.Allocation{
		{DesiredStatus: "run", ClientStatus: "running", Resources: res(100, 128, 10)},
		{DesiredStatus: "run", ClientStatus: "pending", TaskResources: map[string]*api.Resources{
			"a": res(50, 64, 0), "b": res(50, 64, 0),
		}},
		{DesiredStatus: "run", ClientStatus: "complete", Resources: res(1000, 1000, 100)},
		{DesiredStatus: "stop", ClientStatus: "running", Resources: res(1000, 1000, 100)},
	}
	want := "CPU           Memory           Disk\n200/3500 MHz  256 MiB/1.0 GiB  10 MiB/1000 MiB"
	must.Eq(t, want, allocatedResources(node, allocs))
}

func TestNodeStatus_HostVolumes(t *testing.T) {
	node := &api.Node{HostVolumes: map[string]*api.HostVolumeInfo{
		"scratch": {Path: "/srv/scratch"},
		"input":   {Path: "/srv/input", ReadOnly: true},
	}}
	must.Eq(t, "input,scratch", hostVolumeNames(node))
	must.Eq(t, "Name     ReadOnly  Source\ninput    true      /srv/input\nscratch  false     /srv/scratch", hostVolumeTable(node))
	must.Eq(t, "<none>", hostVolumeNames(&api.Node{}))
}

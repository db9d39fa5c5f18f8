package command

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/drover-io/drover/api"
)

// nodeEventsShown is how many of a node's latest events "node status"
// shows unless -verbose.
const nodeEventsShown = 10

// NodeStatusCommand lists the nodes, or shows one.
type NodeStatusCommand struct{ Meta }

func (c *NodeStatusCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover node status [options] [node]

  Without a node, lists every node. With a node ID, or a unique prefix of
  one, shows the node: its settings, its drivers, its latest events, how
  much of its capacity its allocations use, and its allocations.
` + clientOptionsHelp + `
Node Status Options:

  -verbose
    Show full IDs, absolute times, every event, and the node's attributes
    and meta.
`)
}

func (c *NodeStatusCommand) Synopsis() string { return "Display status information about nodes" }

func (c *NodeStatusCommand) Run(args []string) int {
	var verbose bool
	fs := c.ClientFlagSet("node status")
	fs.BoolVar(&verbose, "verbose", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() > 1 {
		return usageError(c.Ui, "node status", "This command takes at most one argument: [node]")
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	if fs.NArg() == 0 {
		nodes, _, err := client.Nodes().List(nil)
		if err != nil {
			c.Ui.Error(apiErrorLine(client, "querying nodes", err))
			return exitError
		}
		if len(nodes) > 0 {
			c.Ui.Output(nodeListTable(nodes, verbose))
		}
		return exitOK
	}

	id := fs.Arg(0)
	nodes, _, err := client.Nodes().PrefixList(id)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "querying nodes", err))
		return exitError
	}
	stub, ok := resolvePrefix(c.Ui, id, "node", nodes, func(n *api.NodeListStub) string { return n.ID },
		func(ambiguous []*api.NodeListStub) string { return nodeListTable(ambiguous, verbose) })
	if !ok {
		return exitError
	}
	node, _, err := client.Nodes().Info(stub.ID, nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "querying node", err))
		return exitError
	}
	allocs, _, err := client.Nodes().Allocations(node.ID, nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "querying node allocations", err))
		return exitError
	}
	c.show(node, allocs, verbose, time.Now())
	return exitOK
}

// nodeListTable is the table of nodes "node status" prints without
// arguments; -verbose adds each node's address and version.
func nodeListTable(nodes []*api.NodeListStub, verbose bool) string {
	header := "ID|Node Pool|DC|Name|Class|Drain|Eligibility|Status"
	if verbose {
		header = "ID|Node Pool|DC|Name|Class|Address|Version|Drain|Eligibility|Status"
	}
	rows := []string{header}
	for _, n := range nodes {
		row := fmt.Sprintf("%s|%s|%s|%s|%s|", shortID(n.ID, verbose), n.NodePool, n.Datacenter, n.Name, orNone(n.NodeClass))
		if verbose {
			row += fmt.Sprintf("%s|%s|", n.Address, n.Version)
		}
		row += fmt.Sprintf("%t|%s|%s", n.Drain, n.SchedulingEligibility, n.Status)
		rows = append(rows, row)
	}
	return formatList(rows)
}

func (c *NodeStatusCommand) show(node *api.Node, allocs []*api.Allocation, verbose bool, now time.Time) {
	c.Ui.Output(formatKV([]string{
		"ID|" + shortID(node.ID, verbose),
		"Name|" + node.Name,
		"Node Pool|" + node.NodePool,
		"Class|" + orNone(node.NodeClass),
		"DC|" + node.Datacenter,
		"Drain|" + strconv.FormatBool(node.Drain),
		"Eligibility|" + node.SchedulingEligibility,
		"Status|" + node.Status,
		"Drivers|" + orNone(strings.Join(healthyDrivers(node), ",")),
		"Host Volumes|" + hostVolumeNames(node),
	}))
	if len(node.Events) > 0 {
		c.Ui.Output("\nNode Events")
		c.Ui.Output(nodeEventTable(node.Events, verbose))
	}
	if node.NodeResources != nil {
		c.Ui.Output("\nAllocated Resources")
		c.Ui.Output(allocatedResources(node, allocs))
	}
	c.Ui.Output("\nAllocations")
	if len(allocs) == 0 {
		c.Ui.Output("No allocations placed")
	} else {
		stubs := make([]*api.AllocationListStub, len(allocs))
		for i, a := range allocs {
			stubs[i] = allocListStub(a)
		}
		c.Ui.Output(allocTable(stubs, verbose, now))
	}
	if verbose {
		c.Ui.Output("\nHost Volumes")
		c.Ui.Output(hostVolumeTable(node))
		c.Ui.Output("\nAttributes")
		c.Ui.Output(formatMap(node.Attributes))
		c.Ui.Output("\nMeta")
		c.Ui.Output(formatMap(node.Meta))
	}
}

// healthyDrivers names the drivers the node detected and that are healthy,
// in name order.
func healthyDrivers(node *api.Node) []string {
	var names []string
	for name, d := range node.Drivers {
		if d != nil && d.Detected && d.Healthy {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// nodeEventTable lists a node's events, newest first: the latest ten unless
// verbose.
func nodeEventTable(events []*api.NodeEvent, verbose bool) string {
	events = slices.Clone(events)
	slices.SortFunc(events, func(a, b *api.NodeEvent) int { return b.Timestamp.Compare(a.Timestamp) })
	if !verbose && len(events) > nodeEventsShown {
		events = events[:nodeEventsShown]
	}
	rows := []string{"Time|Subsystem|Message"}
	for _, e := range events {
		rows = append(rows, fmt.Sprintf("%s|%s|%s", formatTime(e.Timestamp), e.Subsystem, e.Message))
	}
	return formatList(rows)
}

// allocatedResources tells how much of the node's schedulable capacity
// (its resources less what it reserves) its live allocations use.
func allocatedResources(node *api.Node, allocs []*api.Allocation) string {
	var cpu, mem, disk int64
	for _, a := range allocs {
		if allocTerminal(a.DesiredStatus, a.ClientStatus) {
			continue
		}
		c, m, d := allocResources(a)
		cpu, mem, disk = cpu+c, mem+m, disk+d
	}
	total := node.NodeResources
	totalCPU, totalMem, totalDisk := total.Cpu.CpuShares, total.Memory.MemoryMB, total.Disk.DiskMB
	if r := node.ReservedResources; r != nil {
		totalCPU -= int64(r.Cpu.CpuShares)
		totalMem -= int64(r.Memory.MemoryMB)
		totalDisk -= int64(r.Disk.DiskMB)
	}
	return formatList([]string{
		"CPU|Memory|Disk",
		fmt.Sprintf("%d/%d MHz|%s/%s|%s/%s", cpu, totalCPU, formatMiB(mem), formatMiB(totalMem), formatMiB(disk), formatMiB(totalDisk)),
	})
}

// allocResources sums what an allocation asks for: its own resources, or
// those of its tasks when it has none of its own.
func allocResources(a *api.Allocation) (cpu, memMB, diskMB int64) {
	add := func(r *api.Resources) {
		if r == nil {
			return
		}
		cpu += int64(deref(r.CPU))
		memMB += int64(deref(r.MemoryMB))
		diskMB += int64(deref(r.DiskMB))
	}
	if a.Resources != nil {
		add(a.Resources)
		return cpu, memMB, diskMB
	}
	for _, name := range slices.Sorted(maps.Keys(a.TaskResources)) {
		add(a.TaskResources[name])
	}
	return cpu, memMB, diskMB
}

// allocTerminal reports whether an allocation no longer holds resources:
// it was told to stop or its client finished it.
func allocTerminal(desired, client string) bool {
	switch desired {
	case api.AllocDesiredStatusStop, api.AllocDesiredStatusEvict:
		return true
	}
	switch client {
	case api.AllocClientStatusComplete, api.AllocClientStatusFailed, api.AllocClientStatusLost:
		return true
	}
	return false
}

// formatMiB shows a size in MiB, in GiB from 1 GiB on.
func formatMiB(mb int64) string {
	if mb >= 1024 || mb <= -1024 {
		return fmt.Sprintf("%.1f GiB", float64(mb)/1024)
	}
	return fmt.Sprintf("%d MiB", mb)
}

// formatMap shows a map as a key = value block in key order.
func formatMap(m map[string]string) string {
	if len(m) == 0 {
		return "<none>"
	}
	var rows []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		rows = append(rows, k+"|"+m[k])
	}
	return formatKV(rows)
}

// allocListStub is the list form of an allocation, for allocTable.
func allocListStub(a *api.Allocation) *api.AllocationListStub {
	stub := &api.AllocationListStub{
		ID:                 a.ID,
		EvalID:             a.EvalID,
		Name:               a.Name,
		Namespace:          a.Namespace,
		NodeID:             a.NodeID,
		NodeName:           a.NodeName,
		JobID:              a.JobID,
		TaskGroup:          a.TaskGroup,
		DesiredStatus:      a.DesiredStatus,
		DesiredDescription: a.DesiredDescription,
		ClientStatus:       a.ClientStatus,
		ClientDescription:  a.ClientDescription,
		CreateIndex:        a.CreateIndex,
		ModifyIndex:        a.ModifyIndex,
		CreateTime:         a.CreateTime,
		ModifyTime:         a.ModifyTime,
		MaxRunDeadline:     a.MaxRunDeadline,
		MaxRunDuration:     a.MaxRunDuration,
		MaxRunExceeded:     a.MaxRunExceeded,
	}
	if a.Job != nil {
		stub.JobType = deref(a.Job.Type)
		stub.JobVersion = deref(a.Job.Version)
	}
	return stub
}

package command

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/drover-io/drover/api"
)

// clientAndAlloc is apiClient, then resolveAlloc of id: for a command
// whose first argument is an allocation. False once either has told the
// user why not.
func (m *Meta) clientAndAlloc(id string) (*api.Client, *api.Allocation, bool) {
	client, ok := m.apiClient()
	if !ok {
		return nil, nil, false
	}
	alloc, ok := m.resolveAlloc(client, id)
	return client, alloc, ok
}

// clientAndAllocTask is clientAndAlloc with resolveAllocTask's task name.
func (m *Meta) clientAndAllocTask(id, taskName string) (*api.Client, *api.Allocation, string, bool) {
	client, ok := m.apiClient()
	if !ok {
		return nil, nil, "", false
	}
	alloc, taskName, ok := m.resolveAllocTask(client, id, taskName)
	return client, alloc, taskName, ok
}

// resolveAlloc finds the one allocation an ID or ID prefix names and
// returns it whole. When there is no such allocation, or several, it tells
// the user (listing the candidates) and returns false.
func (m *Meta) resolveAlloc(client *api.Client, id string) (*api.Allocation, bool) {
	if len(id) < 2 {
		m.Ui.Error("Identifier must contain at least two characters.")
		return nil, false
	}
	if structsUUIDLength == len(id) {
		// A whole ID is read directly: a task's workload identity may
		// read its own allocation but not list allocations.
		if alloc, _, err := client.Allocations().Info(id, nil); err == nil {
			return alloc, true
		}
	}
	stubs, _, err := client.Allocations().PrefixList(id)
	if err != nil {
		m.Ui.Error(apiErrorLine(client, "querying allocations", err))
		return nil, false
	}
	stub, ok := resolvePrefix(m.Ui, id, "allocation", stubs, func(a *api.AllocationListStub) string { return a.ID },
		func(ambiguous []*api.AllocationListStub) string { return allocTable(ambiguous, false, time.Now()) })
	if !ok {
		return nil, false
	}
	alloc, _, err := client.Allocations().Info(stub.ID, nil)
	if err != nil {
		m.Ui.Error(apiErrorLine(client, "querying allocation", err))
		return nil, false
	}
	return alloc, true
}

// resolveAllocTask is resolveAlloc for commands that act on one task or on
// every task: a task name, when given, must be one of the allocation's.
func (m *Meta) resolveAllocTask(client *api.Client, id, taskName string) (*api.Allocation, string, bool) {
	alloc, ok := m.resolveAlloc(client, id)
	if !ok {
		return nil, "", false
	}
	if taskName == "" {
		return alloc, "", true
	}
	taskName, ok = m.pickTask(alloc, taskName)
	return alloc, taskName, ok
}

// allocTaskNames lists the tasks of an allocation's group, in the order of
// the job, or of its task states when the job is missing.
func allocTaskNames(alloc *api.Allocation) []string {
	if alloc.Job != nil {
		for _, tg := range alloc.Job.TaskGroups {
			if tg == nil || deref(tg.Name) != alloc.TaskGroup {
				continue
			}
			names := make([]string, 0, len(tg.Tasks))
			for _, t := range tg.Tasks {
				names = append(names, t.Name)
			}
			return names
		}
	}
	names := make([]string, 0, len(alloc.TaskStates))
	for name := range alloc.TaskStates {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// pickTask settles which task of the allocation a command acts on: the one
// named, else the only one. A name the group does not have, or no name for
// a group of several tasks, is reported with the tasks to choose from.
func (m *Meta) pickTask(alloc *api.Allocation, name string) (string, bool) {
	// Sorted, so the list of tasks to choose from reads the same every time.
	tasks := allocTaskNames(alloc)
	slices.Sort(tasks)
	switch {
	case name != "" && slices.Contains(tasks, name):
		return name, true
	case name != "":
		m.Ui.Error(fmt.Sprintf("Could not find task named %q in allocation %q. Tasks: %s", name, alloc.ID, strings.Join(tasks, ", ")))
	case len(tasks) == 1:
		return tasks[0], true
	case len(tasks) == 0:
		m.Ui.Error(fmt.Sprintf("Allocation %q has no tasks", alloc.ID))
	default:
		var b strings.Builder
		fmt.Fprintf(&b, "Allocation %q is running the following tasks:\n", limit(alloc.ID, shortIDLength))
		for _, t := range tasks {
			fmt.Fprintf(&b, "  * %s\n", t)
		}
		b.WriteString("\nPlease specify the task.")
		m.Ui.Error(b.String())
	}
	return "", false
}

// structsUUIDLength is the length of a whole allocation ID.
const structsUUIDLength = 36

package tasktest

import (
	"time"

	"github.com/drover-io/drover/structs"
)

// Task is a task for driver with the given config: no restarts, a 5s
// kill_timeout and small resources.
func Task(name, driver string, config map[string]any) *structs.Task {
	return &structs.Task{
		Name:        name,
		Driver:      driver,
		Config:      config,
		KillTimeout: 5 * time.Second,
		Resources:   &structs.Resources{CPU: 100, MemoryMB: 64},
		LogConfig:   structs.DefaultLogConfig(),
		RestartPolicy: &structs.RestartPolicy{
			Attempts: 0, Interval: time.Hour, Delay: 10 * time.Second, Mode: structs.RestartPolicyModeFail,
		},
	}
}

// EventTypes lists the task's event types in order.
func EventTypes(ts *structs.TaskState) []string {
	out := make([]string, len(ts.Events))
	for i, ev := range ts.Events {
		out[i] = ev.Type
	}
	return out
}

// LastEvent returns the task's last event of the type, or nil.
func LastEvent(ts *structs.TaskState, typ string) *structs.TaskEvent {
	for i := len(ts.Events) - 1; i >= 0; i-- {
		if ts.Events[i].Type == typ {
			return ts.Events[i]
		}
	}
	return nil
}

// CountEvents counts the task's events of the type.
func CountEvents(ts *structs.TaskState, typ string) int {
	n := 0
	for _, ev := range ts.Events {
		if ev.Type == typ {
			n++
		}
	}
	return n
}

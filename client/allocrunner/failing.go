package allocrunner

import "github.com/drover-io/drover/structs"

// failure is a task's failure that it had not recovered from when the
// allocation was killed.
type failure struct {
	task  string
	event *structs.TaskEvent
}

// unrecoveredFailure is the last failure event of a task's state that no
// Started event followed, looking only at the events before the task was
// first killed (the kill's own Terminated event is not a failure of the
// task); nil when the task was not failing.
func unrecoveredFailure(s *structs.TaskState) *structs.TaskEvent {
	var last *structs.TaskEvent
	for _, e := range s.Events {
		switch {
		case e == nil:
		case e.Type == structs.TaskKilling:
			return last
		case e.Type == structs.TaskStarted:
			last = nil
		case e.IsFailure():
			last = e
		}
	}
	return last
}

// failingTask is the first task, in the group's order, that was failing
// when the allocation was killed; ok is false when none was.
func (g groupStates) failingTask() (f failure, ok bool) {
	for _, t := range g.tasks {
		if e := unrecoveredFailure(g.state(t.Name)); e != nil {
			return failure{task: t.Name, event: e}, true
		}
	}
	return failure{}, false
}

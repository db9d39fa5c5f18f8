package taskrunner

import (
	"fmt"
	"strconv"
	"time"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/structs"
)

// maxTaskEvents is how many events a task keeps; older ones are dropped.
const maxTaskEvents = 10

// newEvent returns an event of type typ stamped now, saying msg.
func newEvent(typ, msg string) *structs.TaskEvent {
	return &structs.TaskEvent{
		Type:           typ,
		Time:           time.Now().UnixNano(),
		DisplayMessage: msg,
		Details:        map[string]string{},
	}
}

// buildingTaskDirMsg is the Task Setup event of the task directory hook.
const buildingTaskDirMsg = "Building Task Directory"

// The events every task records, kept for as long as it runs, share their
// details, which are always the same, instead of a map each: nothing
// writes an event's details once it is made, and a copy of an event
// clones them.
var (
	noDetails       = map[string]string{}
	buildingTaskDir = map[string]string{"message": buildingTaskDirMsg}
)

// sharedEvent is an event of type typ stamped now, saying msg, with the
// shared details d.
func sharedEvent(typ, msg string, d map[string]string) *structs.TaskEvent {
	return &structs.TaskEvent{Type: typ, Time: time.Now().UnixNano(), DisplayMessage: msg, Details: d}
}

func receivedEvent() *structs.TaskEvent {
	return sharedEvent(structs.TaskReceived, "Task received by client", noDetails)
}

// buildingTaskDirEvent is the Task Setup event of building the task's
// directory.
func buildingTaskDirEvent() *structs.TaskEvent {
	ev := sharedEvent(structs.TaskSetup, buildingTaskDirMsg, buildingTaskDir)
	ev.Message = buildingTaskDirMsg
	return ev
}

func setupFailureEvent(err error, fatal bool) *structs.TaskEvent {
	ev := newEvent(structs.TaskSetupFailure, "Task setup failed: "+err.Error())
	ev.SetupError = err.Error()
	ev.FailsTask = fatal
	ev.Details["setup_error"] = err.Error()
	return ev
}

func startedEvent() *structs.TaskEvent {
	return sharedEvent(structs.TaskStarted, "Task started by client", noDetails)
}

func terminatedEvent(res *drivers.ExitResult) *structs.TaskEvent {
	msg := fmt.Sprintf("Exit Code: %d", res.ExitCode)
	if res.Signal != 0 {
		msg += fmt.Sprintf(", Signal: %d", res.Signal)
	}
	if res.OOMKilled {
		msg += ", OOM Killed"
	}
	if res.Err != nil {
		msg += ", Exit Message: " + strconv.Quote(res.Err.Error())
	}
	ev := newEvent(structs.TaskTerminated, msg)
	ev.ExitCode = res.ExitCode
	ev.Signal = res.Signal
	ev.Details["exit_code"] = strconv.Itoa(res.ExitCode)
	ev.Details["signal"] = strconv.Itoa(res.Signal)
	ev.Details["oom_killed"] = strconv.FormatBool(res.OOMKilled)
	if res.Err != nil {
		ev.Message = res.Err.Error()
		ev.Details["exit_message"] = res.Err.Error()
	}
	return ev
}

// killingEvent completes ev, a Killing event from whoever asked for the
// kill, with the kill timeout and a default message.
func killingEvent(ev *structs.TaskEvent, signal string, timeout time.Duration) *structs.TaskEvent {
	if ev == nil {
		ev = newEvent(structs.TaskKilling, "")
	}
	ev = ev.Copy()
	if ev.Details == nil {
		ev.Details = map[string]string{}
	}
	ev.KillTimeout = timeout
	ev.Details["kill_timeout"] = timeout.String()
	if ev.DisplayMessage == "" {
		ev.DisplayMessage = fmt.Sprintf("Sent %s, force kill after %s", signal, timeout)
	}
	return ev
}

func killedEvent(err error) *structs.TaskEvent {
	if err != nil {
		ev := newEvent(structs.TaskKilled, "Task killed with error: "+err.Error())
		ev.KillError = err.Error()
		ev.Details["kill_error"] = err.Error()
		return ev
	}
	return newEvent(structs.TaskKilled, "Task successfully killed")
}

func restartingEvent(delay time.Duration, reason string) *structs.TaskEvent {
	msg := "Task restarting"
	if delay > 0 {
		msg = fmt.Sprintf("Task restarting in %s", delay)
	}
	if reason != "" {
		msg += ": " + reason
	}
	ev := newEvent(structs.TaskRestarting, msg)
	ev.StartDelay = int64(delay)
	ev.RestartReason = reason
	ev.Details["start_delay"] = strconv.FormatInt(int64(delay), 10)
	ev.Details["restart_reason"] = reason
	return ev
}

func notRestartingEvent(reason string, failed bool) *structs.TaskEvent {
	ev := newEvent(structs.TaskNotRestarting, reason)
	ev.RestartReason = reason
	ev.FailsTask = failed
	ev.Details["restart_reason"] = reason
	return ev
}

func driverFailureEvent(err error) *structs.TaskEvent {
	ev := newEvent(structs.TaskDriverFailure, "Failed to start task: "+err.Error())
	ev.DriverError = err.Error()
	ev.Details["driver_error"] = err.Error()
	return ev
}

// driverMessageEvent is a driver's message about the task, such as the
// progress of an image pull.
func driverMessageEvent(dev *drivers.TaskEvent) *structs.TaskEvent {
	ev := newEvent(structs.TaskDriverMessage, dev.Message)
	ev.DriverMessage = dev.Message
	for k, v := range dev.Details {
		ev.Details[k] = v
	}
	return ev
}

func downloadingArtifactsEvent() *structs.TaskEvent {
	return newEvent(structs.TaskDownloadingArtifacts, "Client is downloading artifacts")
}

func artifactFailedEvent(err error) *structs.TaskEvent {
	ev := newEvent(structs.TaskArtifactDownloadFailed, "Failed to download artifacts: "+err.Error())
	ev.DownloadError = err.Error()
	ev.Details["download_error"] = err.Error()
	return ev
}

func shutdownDelayEvent(delay time.Duration) *structs.TaskEvent {
	return newEvent(structs.TaskWaitingShuttingDelay, fmt.Sprintf("Waiting %s before killing the task", delay))
}

func skippingShutdownDelayEvent(delay time.Duration) *structs.TaskEvent {
	return newEvent(structs.TaskSkippingShutdownDelay, fmt.Sprintf("Skipping shutdown delay of %s", delay))
}

func signalingEvent(signal, reason string) *structs.TaskEvent {
	ev := newEvent(structs.TaskSignaling, "Task being sent signal "+signal)
	if reason != "" {
		ev.DisplayMessage += ": " + reason
	}
	ev.TaskSignal = signal
	ev.TaskSignalReason = reason
	ev.Details["signal"] = signal
	ev.Details["reason"] = reason
	return ev
}

// NewRestartSignalEvent is the event of a restart a user asked for.
func NewRestartSignalEvent(reason string) *structs.TaskEvent {
	msg := "User requested task to restart"
	if reason != "" {
		msg = reason
	}
	ev := newEvent(structs.TaskRestartSignal, msg)
	ev.RestartReason = msg
	ev.Details["restart_reason"] = msg
	return ev
}

// NewKillingEvent is a Killing event saying why the task is killed; an
// empty reason gets the default message.
func NewKillingEvent(reason string) *structs.TaskEvent {
	ev := newEvent(structs.TaskKilling, reason)
	if reason != "" {
		ev.KillReason = reason
		ev.Details["kill_reason"] = reason
	}
	return ev
}

// NewSiblingFailedEvent is the event of a task killed because a sibling
// failed.
func NewSiblingFailedEvent(sibling string) *structs.TaskEvent {
	ev := newEvent(structs.TaskSiblingFailed, fmt.Sprintf("Task's sibling %q failed", sibling))
	ev.FailedSibling = sibling
	ev.Details["failed_sibling"] = sibling
	return ev
}

// NewLeaderDeadEvent is the event of a task killed because its group's
// leader task died.
func NewLeaderDeadEvent() *structs.TaskEvent {
	return newEvent(structs.TaskLeaderDead, "Leader task in the group is dead")
}

// NewMainDeadEvent is the event of a sidecar killed because every main task
// of its group has ended.
func NewMainDeadEvent() *structs.TaskEvent {
	return newEvent(structs.TaskMainDead, "Main tasks in the group are dead")
}

// NewSetupFailureEvent is the event of a task that can never run because
// its allocation could not be set up.
func NewSetupFailureEvent(err error) *structs.TaskEvent {
	return setupFailureEvent(err, true)
}

package structs

// Task event types, the values of TaskEvent.Type. The strings are Nomad's,
// so that tools reading task events keep working.
const (
	TaskReceived               = "Received"
	TaskSetup                  = "Task Setup"
	TaskSetupFailure           = "Setup Failure"
	TaskStarted                = "Started"
	TaskTerminated             = "Terminated"
	TaskKilling                = "Killing"
	TaskKilled                 = "Killed"
	TaskRestarting             = "Restarting"
	TaskNotRestarting          = "Not Restarting"
	TaskDownloadingArtifacts   = "Downloading Artifacts"
	TaskArtifactDownloadFailed = "Failed Artifact Download"
	TaskDriverFailure          = "Driver Failure"
	TaskDriverMessage          = "Driver"
	TaskSiblingFailed          = "Sibling Task Failed"
	TaskLeaderDead             = "Leader Task Dead"
	TaskMainDead               = "Main Tasks Dead"
	TaskSkippingShutdownDelay  = "Skipping shutdown delay"
	TaskRestartSignal          = "Restart Signaled"
	TaskSignaling              = "Signaling"
	TaskWaitingShuttingDelay   = "Waiting for shutdown delay"
)

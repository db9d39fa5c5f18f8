package structs

import "time"

// Defaults that conversion and canonicalisation fill in, Nomad's values.
const (
	// AllDatacenters is the datacenter pattern of a job that names none.
	AllDatacenters = "*"

	// DefaultTaskGroupCount is the count of a group that sets none.
	DefaultTaskGroupCount = 1

	// DefaultKillTimeout is how long a task has between its kill signal and
	// being killed.
	DefaultKillTimeout = 5 * time.Second

	// DefaultKillSignal is the signal the client sends a task whose
	// KillSignal is empty.
	DefaultKillSignal = "SIGINT"

	DefaultLogMaxFiles      = 10
	DefaultLogMaxFileSizeMB = 10

	DefaultCPU      = 100
	DefaultMemoryMB = 300

	// DefaultArtifactMode and DefaultArtifactDest are where an artifact
	// goes when its block does not say.
	DefaultArtifactMode = ArtifactModeAny
	DefaultArtifactDest = "local/"
)

// Artifact getter modes.
const (
	ArtifactModeAny  = "any"
	ArtifactModeFile = "file"
	ArtifactModeDir  = "dir"
)

// DefaultRestartPolicy returns the restart policy of a group that has none.
// Unknown types get the service policy; validation rejects them anyway.
func DefaultRestartPolicy(jobType string) *RestartPolicy {
	switch jobType {
	case JobTypeBatch, JobTypeSysbatch:
		return &RestartPolicy{
			Attempts: 3,
			Interval: 24 * time.Hour,
			Delay:    15 * time.Second,
			Mode:     RestartPolicyModeFail,
		}
	default:
		return &RestartPolicy{
			Attempts: 2,
			Interval: 30 * time.Minute,
			Delay:    15 * time.Second,
			Mode:     RestartPolicyModeFail,
		}
	}
}

// DefaultReschedulePolicy returns the reschedule policy of a group that has
// none, or nil for job types that never reschedule (system and sysbatch:
// their allocations are tied to a node).
func DefaultReschedulePolicy(jobType string) *ReschedulePolicy {
	switch jobType {
	case JobTypeService:
		return &ReschedulePolicy{
			Delay:         30 * time.Second,
			DelayFunction: RescheduleDelayExponential,
			MaxDelay:      time.Hour,
			Unlimited:     true,
		}
	case JobTypeBatch:
		return &ReschedulePolicy{
			Attempts:      1,
			Interval:      24 * time.Hour,
			Delay:         5 * time.Second,
			DelayFunction: RescheduleDelayConstant,
		}
	default:
		return nil
	}
}

// Reschedules reports whether allocations of jobs of this type are
// rescheduled when they fail.
func Reschedules(jobType string) bool {
	return jobType != JobTypeSystem && jobType != JobTypeSysbatch
}

// DefaultLogConfig returns the log limits of a task that sets none.
func DefaultLogConfig() *LogConfig {
	return &LogConfig{MaxFiles: DefaultLogMaxFiles, MaxFileSizeMB: DefaultLogMaxFileSizeMB}
}

// DefaultResources returns the resources of a task that asks for none.
func DefaultResources() *Resources {
	return &Resources{CPU: DefaultCPU, MemoryMB: DefaultMemoryMB}
}

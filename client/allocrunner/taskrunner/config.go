package taskrunner

import (
	"github.com/hashicorp/go-hclog"

	"github.com/drover-io/drover/client/allocdir"
	"github.com/drover-io/drover/client/state"
	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/structs"
)

// Config is what a task runner needs.
type Config struct {
	Alloc *structs.Allocation
	// Task is the task's definition within Alloc's job.
	Task   *structs.Task
	Logger hclog.Logger
	// TaskDir is the task's directory; its Build is up to the task dir hook.
	TaskDir *allocdir.TaskDir
	Drivers *drivers.Catalog
	StateDB state.StateDB
	// StateUpdater is told whenever the task's state changes.
	StateUpdater StateUpdater
	// Node is the node the task runs on, for the environment and ${...}
	// interpolation. It may be nil.
	Node *structs.Node
	// StartGate is closed when the task may start (the group's lifecycle
	// ordering). Nil means at once.
	StartGate <-chan struct{}
	// Artifact says where artifacts may be fetched from and bounds what
	// an archive may unpack to; nil means DefaultArtifactConfig.
	Artifact *ArtifactConfig
	// MaxRunEvents is told when the task's own max_run_duration kills it
	// and when its max_run_warning is sent, for the client's counters. It
	// may be nil.
	MaxRunEvents MaxRunEvents
	// Identities signs the task's workload identity when its identity
	// block asks for one. It may be nil: such a task then fails to start.
	Identities IdentitySigner
	// Variables serves the Nomad variables the task's templates read. It
	// may be nil: nomadVar and its kin then fail the render.
	Variables VariableSources
	// Network returns the group's network namespace, which the alloc
	// runner makes before any task starts; nil (or a nil func) in host
	// mode.
	Network func() *NetworkIsolation
}

// MaxRunEvents is told what a task's own max_run_duration and its
// max_run_warning did. Calls come from the task runner's goroutines and
// must not block.
type MaxRunEvents interface {
	TaskMaxRunExceeded(task string)
	TaskMaxRunWarned(task string)
}

// StateUpdater is told that a task's state changed. It must not block: the
// task runner calls it in the middle of its work.
type StateUpdater interface {
	TaskStateUpdated()
}

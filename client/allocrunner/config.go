package allocrunner

import (
	"time"

	"github.com/hashicorp/go-hclog"
	metrics "github.com/hashicorp/go-metrics"

	"github.com/drover-io/drover/client/allocrunner/taskrunner"
	"github.com/drover-io/drover/client/state"
	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/structs"
)

// Config is what an alloc runner needs.
type Config struct {
	Alloc  *structs.Allocation
	Logger hclog.Logger
	// AllocDirRoot holds one directory per allocation.
	AllocDirRoot string
	StateDB      state.StateDB
	Drivers      *drivers.Catalog
	// StateUpdater is told of every change of the allocation's client
	// state. It may be nil.
	StateUpdater AllocStateHandler
	// Node is the node the allocation runs on, for the tasks' environment
	// and ${attr.*}, ${node.*} and ${meta.*} interpolation. It may be nil.
	Node *structs.Node
	// Artifact bounds what the tasks' artifact archives may unpack to; nil
	// means taskrunner.DefaultArtifactConfig.
	Artifact *taskrunner.ArtifactConfig
	// Metrics receives the allocation's telemetry. Nil means go-metrics'
	// global instance, looked up at each emission so that it follows the
	// agent's sinks.
	Metrics *metrics.Metrics
	// MetricsCollectionInterval is how often gauges that change with time
	// (max_run_duration's remaining seconds) are refreshed. Zero means
	// DefaultMetricsCollectionInterval.
	MetricsCollectionInterval time.Duration
	// Identities signs the workload identities the tasks' identity blocks
	// ask for. It may be nil.
	Identities taskrunner.IdentitySigner
	// Variables serves the Nomad variables the tasks' templates read; nil
	// fails nomadVar and its kin.
	Variables taskrunner.VariableSources
	// Network makes the group's network namespace (modes bridge, none
	// and cni/<name>). It may be nil: such groups then fail to start.
	Network NetworkManager
}

// DefaultMetricsCollectionInterval is the agent's default telemetry
// collection_interval.
const DefaultMetricsCollectionInterval = time.Second

// AllocStateHandler is told of the allocation's client state.
type AllocStateHandler interface {
	// AllocStateUpdated receives a copy of the allocation carrying its
	// current ClientStatus, ClientDescription and TaskStates. Calls come one
	// at a time from a goroutine of the runner's own, so a slow handler
	// delays later updates but never the runner; it should still return
	// promptly, and must not call back into the runner's Run, Shutdown or
	// Destroy.
	AllocStateUpdated(alloc *structs.Allocation)
}

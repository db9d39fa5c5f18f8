package drainer

import (
	"context"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-memdb"

	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// Descriptions of allocations the drainer stops.
const (
	DeadlineDescription = "alloc was stopped because the node drain deadline was reached"
	SystemDescription   = "alloc was stopped because its node was drained"
)

// drainRetry is how soon the drainer looks again after a failed write.
const drainRetry = time.Second

// Cluster is what the drainer needs of the server: the state it drains
// from and the writes it makes, on the leader.
type Cluster interface {
	// State is the server's current state store.
	State() *state.StateStore
	// Apply commits a log entry through raft.
	Apply(ctx context.Context, t logentry.MessageType, entry logentry.Entry) error
	// EndDrain ends a node's drain; the node stays ineligible.
	EndDrain(ctx context.Context, nodeID string) error
}

// Drainer migrates the allocations off draining nodes, on the leader.
type Drainer struct {
	cluster Cluster
	logger  hclog.Logger
}

// New returns a drainer that acts on cluster.
func New(cluster Cluster, logger hclog.Logger) *Drainer {
	return &Drainer{cluster: cluster, logger: logger}
}

// Run drains the nodes that have a drain strategy, until ctx ends:
// service allocations are marked to migrate, so that their schedulers
// replace them elsewhere; batch allocations are left to finish; system
// allocations stop once nothing else is left (unless the drain ignores
// system jobs). When the deadline passes, whatever still runs is stopped.
// A node with nothing left to drain ends its drain and stays ineligible.
func (d *Drainer) Run(ctx context.Context) {
	for {
		ws := memdb.NewWatchSet()
		wait, err := d.drainStep(ctx, ws)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			d.logger.Warn("drain nodes", "error", err)
			wait = drainRetry
		}
		wctx, cancel := ctx, context.CancelFunc(func() {})
		if wait > 0 {
			wctx, cancel = context.WithTimeout(ctx, wait)
		}
		_ = ws.WatchCtx(wctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
	}
}

// drainStep acts on every draining node once and returns how long until
// the next drain deadline (0: none), having added what it read to ws.
func (d *Drainer) drainStep(ctx context.Context, ws memdb.WatchSet) (time.Duration, error) {
	st := d.cluster.State()
	ws.Add(st.AbandonCh())
	nodes, err := st.Nodes(ws)
	if err != nil {
		return 0, err
	}
	now := time.Now()
	var next time.Time
	for _, node := range nodes {
		drain := node.DrainStrategy
		if drain == nil {
			continue
		}
		allocs, err := st.AllocsByNode(ws, node.ID)
		if err != nil {
			return 0, err
		}
		forced := !drain.ForceDeadline.IsZero() && !now.Before(drain.ForceDeadline)
		if !forced && !drain.ForceDeadline.IsZero() && (next.IsZero() || drain.ForceDeadline.Before(next)) {
			next = drain.ForceDeadline
		}
		if err := d.drainNode(ctx, node, planDrain(node, allocs, forced)); err != nil {
			return 0, err
		}
	}
	if next.IsZero() {
		return 0, nil
	}
	return max(time.Until(next), time.Millisecond), nil
}

// drainActions is what a draining node needs now.
type drainActions struct {
	migrate []*structs.Allocation // to mark for migration
	stop    []*structs.Allocation // to stop: the deadline passed
	system  []*structs.Allocation // system allocations to stop last
	done    bool                  // nothing is left: the drain is complete
}

// planDrain decides what a draining node's allocations need.
func planDrain(node *structs.Node, allocs []*structs.Allocation, forced bool) drainActions {
	var act drainActions
	remaining := 0
	var system []*structs.Allocation
	for _, a := range allocs {
		if a.TerminalStatus() {
			continue
		}
		switch allocJobType(a) {
		case structs.JobTypeSystem:
			if !node.DrainStrategy.IgnoreSystemJobs {
				system = append(system, a)
			}
			continue
		case structs.JobTypeService:
			remaining++
			switch {
			case forced:
				act.stop = append(act.stop, a)
			case !isTrue(a.DesiredTransition.Migrate):
				act.migrate = append(act.migrate, a)
			}
		default: // batch and sysbatch work is left to finish
			remaining++
			if forced {
				act.stop = append(act.stop, a)
			}
		}
	}
	if remaining == 0 {
		act.system = system
		act.done = len(system) == 0
	}
	return act
}

func allocJobType(a *structs.Allocation) string {
	if a.Job == nil || a.Job.Type == "" {
		return structs.JobTypeService
	}
	return a.Job.Type
}

func isTrue(b *bool) bool { return b != nil && *b }

// drainNode carries out a node's drain actions.
func (d *Drainer) drainNode(ctx context.Context, node *structs.Node, act drainActions) error {
	now := time.Now().UnixNano()
	if len(act.migrate) > 0 {
		yes := true
		entry := &logentry.AllocTransition{
			Transitions: make(map[string]structs.DesiredTransition, len(act.migrate)),
			Evals:       drainEvals(node.ID, act.migrate, now),
		}
		for _, a := range act.migrate {
			entry.Transitions[a.ID] = structs.DesiredTransition{Migrate: &yes}
		}
		d.logger.Info("draining node: migrating allocations", "node_id", node.ID, "count", len(act.migrate))
		if err := d.cluster.Apply(ctx, logentry.MsgAllocDesiredTransition, entry); err != nil {
			return err
		}
	}
	if len(act.stop) > 0 {
		d.logger.Info("node drain deadline reached: stopping allocations", "node_id", node.ID, "count", len(act.stop))
		if err := d.stopDrainedAllocs(ctx, node.ID, act.stop, DeadlineDescription, now); err != nil {
			return err
		}
	}
	if len(act.system) > 0 {
		if err := d.stopDrainedAllocs(ctx, node.ID, act.system, SystemDescription, now); err != nil {
			return err
		}
	}
	if act.done {
		d.logger.Info("node drain complete", "node_id", node.ID)
		if err := d.cluster.EndDrain(ctx, node.ID); err != nil {
			return err
		}
	}
	return nil
}

func (d *Drainer) stopDrainedAllocs(ctx context.Context, nodeID string, allocs []*structs.Allocation, desc string, now int64) error {
	ids := make([]string, len(allocs))
	for i, a := range allocs {
		ids[i] = a.ID
	}
	entry := &logentry.AllocDesiredStatus{
		AllocIDs: ids,
		Desired:  structs.AllocDesiredStatusStop,
		Desc:     desc,
		Evals:    drainEvals(nodeID, allocs, now),
	}
	return d.cluster.Apply(ctx, logentry.MsgAllocDesiredStatus, entry)
}

// drainEvals returns one evaluation per job of the allocations.
func drainEvals(nodeID string, allocs []*structs.Allocation, now int64) []*structs.Evaluation {
	var evals []*structs.Evaluation
	seen := make(map[drainKey]bool)
	for _, a := range allocs {
		key := drainKey{a.Namespace, a.JobID}
		if seen[key] {
			continue
		}
		seen[key] = true
		priority := structs.DefaultPriority
		if a.Job != nil {
			priority = a.Job.Priority
		}
		evals = append(evals, &structs.Evaluation{
			ID:          structs.GenerateUUID(),
			Namespace:   a.Namespace,
			Priority:    priority,
			Type:        allocJobType(a),
			TriggeredBy: structs.EvalTriggerNodeDrain,
			JobID:       a.JobID,
			NodeID:      nodeID,
			Status:      structs.EvalStatusPending,
			CreateTime:  now,
			ModifyTime:  now,
		})
	}
	return evals
}

// drainKey names a job the drain evaluates once.
type drainKey struct{ namespace, id string }

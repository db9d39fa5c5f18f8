package state

import (
	"fmt"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-io/drover/structs"
)

// Garbage is what one pass of the servers' garbage collection removes
// (package nomad/gc decides it).
type Garbage struct {
	Jobs   []GarbageJob  `json:",omitempty"`
	Evals  []string      `json:",omitempty"`
	Allocs []string      `json:",omitempty"`
	Nodes  []GarbageNode `json:",omitempty"`
}

// GarbageJob names a job to remove, at the ModifyIndex it was seen at.
type GarbageJob struct {
	Namespace   string
	ID          string
	ModifyIndex uint64
}

// GarbageNode names a node to remove, at the ModifyIndex it was seen at.
type GarbageNode struct {
	ID          string
	ModifyIndex uint64
}

// Empty reports whether g removes nothing.
func (g *Garbage) Empty() bool {
	return g == nil || len(g.Jobs)+len(g.Evals)+len(g.Allocs)+len(g.Nodes) == 0
}

// Count is the number of objects g names.
func (g *Garbage) Count() int {
	if g == nil {
		return 0
	}
	return len(g.Jobs) + len(g.Evals) + len(g.Allocs) + len(g.Nodes)
}

// DeleteGarbage removes what garbage collection decided, checking each
// object again in the state the entry lands on, so that what changed
// since the decision stays: a job whose ModifyIndex moved (registered
// again), an evaluation that is not terminal, an allocation its client
// has not finished (unless the server stopped it and its node is down or
// gone), a node written since. What is not stored is skipped.
func (s *StateStore) DeleteGarbage(index uint64, g *Garbage) error {
	if g == nil {
		return nil
	}
	return s.write(func(txn *memdb.Txn) error {
		for _, ref := range g.Jobs {
			if err := deleteGarbageJob(txn, ref); err != nil {
				return err
			}
		}
		for _, id := range g.Evals {
			raw, err := txn.First(TableEvals, indexID, id)
			if err != nil {
				return fmt.Errorf("read evaluation %q: %w", id, err)
			}
			if raw == nil || !raw.(*structs.Evaluation).TerminalStatus() {
				continue
			}
			if err := txn.Delete(TableEvals, raw); err != nil {
				return fmt.Errorf("delete evaluation %q: %w", id, err)
			}
		}
		var allocs []string
		for _, id := range g.Allocs {
			raw, err := txn.First(TableAllocs, indexID, id)
			if err != nil {
				return fmt.Errorf("read allocation %q: %w", id, err)
			}
			if raw == nil {
				continue
			}
			a := raw.(*structs.Allocation)
			if done, err := allocFinished(txn, a); err != nil || !done {
				if err != nil {
					return err
				}
				continue
			}
			if err := txn.Delete(TableAllocs, raw); err != nil {
				return fmt.Errorf("delete allocation %q: %w", id, err)
			}
			allocs = append(allocs, id)
		}
		if err := deleteServicesBy(txn, index, indexAlloc, allocs); err != nil {
			return err
		}
		for _, ref := range g.Nodes {
			raw, err := txn.First(TableNodes, indexID, ref.ID)
			if err != nil {
				return fmt.Errorf("read node %q: %w", ref.ID, err)
			}
			if raw == nil || raw.(*structs.Node).ModifyIndex != ref.ModifyIndex {
				continue
			}
			if err := txn.Delete(TableNodes, raw); err != nil {
				return fmt.Errorf("delete node %q: %w", ref.ID, err)
			}
		}
		return bumpIndex(txn, index, TableJobs, TableJobVersions, TablePeriodicLaunch, TableEvals, TableAllocs, TableNodes)
	})
}

// deleteGarbageJob removes a job, its versions and its periodic launch,
// if it is still the one garbage collection saw.
func deleteGarbageJob(txn *memdb.Txn, ref GarbageJob) error {
	raw, err := txn.First(TableJobs, indexID, ref.Namespace, ref.ID)
	if err != nil {
		return fmt.Errorf("read job %q in namespace %q: %w", ref.ID, ref.Namespace, err)
	}
	if raw == nil || raw.(*structs.Job).ModifyIndex != ref.ModifyIndex {
		return nil
	}
	if err := txn.Delete(TableJobs, raw); err != nil {
		return fmt.Errorf("delete job %q in namespace %q: %w", ref.ID, ref.Namespace, err)
	}
	if _, err := txn.DeleteAll(TableJobVersions, indexJob, ref.Namespace, ref.ID); err != nil {
		return fmt.Errorf("delete versions of job %q in namespace %q: %w", ref.ID, ref.Namespace, err)
	}
	if _, err := txn.DeleteAll(TablePeriodicLaunch, indexID, ref.Namespace, ref.ID); err != nil {
		return fmt.Errorf("delete periodic launch of job %q in namespace %q: %w", ref.ID, ref.Namespace, err)
	}
	return nil
}

// allocFinished reports whether an allocation has finished for good: its
// client says so, or the server stopped it and its node is down or gone.
func allocFinished(txn *memdb.Txn, a *structs.Allocation) (bool, error) {
	if a.ClientTerminalStatus() {
		return true, nil
	}
	if !a.TerminalStatus() {
		return false, nil
	}
	raw, err := txn.First(TableNodes, indexID, a.NodeID)
	if err != nil {
		return false, fmt.Errorf("read node %q: %w", a.NodeID, err)
	}
	return raw == nil || raw.(*structs.Node).Status == structs.NodeStatusDown, nil
}

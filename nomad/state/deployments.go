package state

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-io/drover/structs"
)

// TableDeployments holds the deployments of job versions.
const TableDeployments = "deployment"

// recordDeployment is the Persist record of a deployment.
const recordDeployment = "deployment"

func deploymentsTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: TableDeployments,
		Indexes: map[string]*memdb.IndexSchema{
			indexID:  {Name: indexID, Unique: true, Indexer: stringField("ID")},
			indexJob: {Name: indexJob, Indexer: namespaced("JobID")},
		},
	}
}

func checkDeployment(d *structs.Deployment) error {
	switch {
	case d == nil:
		return errors.New("deployment is nil")
	case d.ID == "":
		return errors.New("deployment has no ID")
	case d.Namespace == "" || d.JobID == "":
		return fmt.Errorf("deployment %q needs a namespace and a job ID", d.ID)
	}
	return nil
}

// UpsertDeployment stores a deployment, taking ownership of it. An update
// keeps the stored CreateIndex and CreateTime.
func (s *StateStore) UpsertDeployment(index uint64, d *structs.Deployment) error {
	if err := checkDeployment(d); err != nil {
		return fmt.Errorf("upsert deployment: %w", err)
	}
	return s.write(func(txn *memdb.Txn) error {
		if err := upsertDeployment(txn, index, d); err != nil {
			return err
		}
		return bumpIndex(txn, index, TableDeployments)
	})
}

func upsertDeployment(txn *memdb.Txn, index uint64, d *structs.Deployment) error {
	raw, err := txn.First(TableDeployments, indexID, d.ID)
	if err != nil {
		return fmt.Errorf("upsert deployment %q: %w", d.ID, err)
	}
	d.CreateIndex = index
	if raw != nil {
		cur := raw.(*structs.Deployment)
		d.CreateIndex = cur.CreateIndex
		if d.CreateTime == 0 {
			d.CreateTime = cur.CreateTime
		}
	}
	d.ModifyIndex = index
	if err := txn.Insert(TableDeployments, d); err != nil {
		return fmt.Errorf("upsert deployment %q: %w", d.ID, err)
	}
	return nil
}

// ApplyDeploymentChanges stores what a plan decided of deployments: the
// one it creates (or updates), d, and status changes of others.
func (s *StateStore) ApplyDeploymentChanges(index uint64, d *structs.Deployment, updates []*structs.DeploymentStatusUpdate, now int64) error {
	return s.write(func(txn *memdb.Txn) error {
		return upsertDeploymentsTxn(txn, index, d, updates, now)
	})
}

func upsertDeploymentsTxn(txn *memdb.Txn, index uint64, d *structs.Deployment, updates []*structs.DeploymentStatusUpdate, now int64) error {
	if d != nil {
		if err := checkDeployment(d); err != nil {
			return fmt.Errorf("upsert deployment: %w", err)
		}
		if err := upsertDeployment(txn, index, d); err != nil {
			return err
		}
	}
	for _, u := range updates {
		if err := updateDeploymentStatus(txn, index, u, now); err != nil {
			return err
		}
	}
	if d == nil && len(updates) == 0 {
		return nil
	}
	return bumpIndex(txn, index, TableDeployments)
}

// UpdateDeploymentStatuses changes the status of deployments; now (Unix
// nanoseconds) is their ModifyTime. A deployment that is not stored, or
// no longer active, is left as it is: its end was already decided.
func (s *StateStore) UpdateDeploymentStatuses(index uint64, updates []*structs.DeploymentStatusUpdate, now int64) error {
	return s.write(func(txn *memdb.Txn) error {
		return upsertDeploymentsTxn(txn, index, nil, updates, now)
	})
}

func updateDeploymentStatus(txn *memdb.Txn, index uint64, u *structs.DeploymentStatusUpdate, now int64) error {
	raw, err := txn.First(TableDeployments, indexID, u.DeploymentID)
	if err != nil {
		return fmt.Errorf("update deployment %q: %w", u.DeploymentID, err)
	}
	if raw == nil || !raw.(*structs.Deployment).Active() {
		return nil
	}
	d := raw.(*structs.Deployment).Copy()
	d.Status = u.Status
	d.StatusDescription = u.StatusDescription
	d.ModifyIndex = index
	d.ModifyTime = now
	return txn.Insert(TableDeployments, d)
}

// SetAllocDeploymentHealth records the health of allocations of a
// deployment, as an operator set it (health_check = "manual") or the
// server decided it. Allocations of another deployment, or not stored,
// are skipped.
func (s *StateStore) SetAllocDeploymentHealth(index uint64, deploymentID string, healthy, unhealthy []string, at time.Time) error {
	return s.write(func(txn *memdb.Txn) error {
		set := func(ids []string, ok bool) error {
			for _, id := range ids {
				err := updateAlloc(txn, id, func(a *structs.Allocation) {
					if a.DeploymentID != deploymentID {
						return
					}
					a.DeploymentStatus = &structs.AllocDeploymentStatus{Healthy: &ok, Timestamp: at, ModifyIndex: index}
					a.ModifyIndex = index
				})
				if err != nil {
					return fmt.Errorf("set health of allocation %q: %w", id, err)
				}
			}
			return nil
		}
		if err := set(healthy, true); err != nil {
			return err
		}
		if err := set(unhealthy, false); err != nil {
			return err
		}
		return bumpIndex(txn, index, TableAllocs)
	})
}

// DeploymentByID returns the deployment, or nil if there is none.
func (r *reader) DeploymentByID(ws memdb.WatchSet, id string) (*structs.Deployment, error) {
	raw, err := r.first(ws, TableDeployments, indexID, id)
	if err != nil || raw == nil {
		return nil, wrapRead(err, "deployment %q", id)
	}
	return raw.(*structs.Deployment), nil
}

// Deployments returns the deployments of namespace (every namespace for
// AllNamespaces) whose ID starts with prefix, sorted by ID.
func (r *reader) Deployments(ws memdb.WatchSet, namespace, prefix string) ([]*structs.Deployment, error) {
	ds, err := list[*structs.Deployment](r, ws, TableDeployments, indexID+"_prefix", prefix)
	if err != nil {
		return nil, wrapRead(err, "deployments with prefix %q", prefix)
	}
	return inNamespace(ds, namespace, func(d *structs.Deployment) string { return d.Namespace }), nil
}

// DeploymentsByJob returns a job's deployments, newest first.
func (r *reader) DeploymentsByJob(ws memdb.WatchSet, namespace, jobID string) ([]*structs.Deployment, error) {
	ds, err := list[*structs.Deployment](r, ws, TableDeployments, indexJob, namespace, jobID)
	if err != nil {
		return nil, wrapRead(err, "deployments of job %q in namespace %q", jobID, namespace)
	}
	slices.SortFunc(ds, func(a, b *structs.Deployment) int {
		switch {
		case a.CreateIndex > b.CreateIndex:
			return -1
		case a.CreateIndex < b.CreateIndex:
			return 1
		}
		return 0
	})
	return ds, nil
}

// LatestDeploymentByJob returns a job's newest deployment, or nil.
func (r *reader) LatestDeploymentByJob(ws memdb.WatchSet, namespace, jobID string) (*structs.Deployment, error) {
	ds, err := r.DeploymentsByJob(ws, namespace, jobID)
	if err != nil || len(ds) == 0 {
		return nil, err
	}
	return ds[0], nil
}

// ActiveDeployments returns the deployments still running or paused.
func (r *reader) ActiveDeployments(ws memdb.WatchSet) ([]*structs.Deployment, error) {
	ds, err := list[*structs.Deployment](r, ws, TableDeployments, indexID)
	if err != nil {
		return nil, wrapRead(err, "deployments")
	}
	return slices.DeleteFunc(ds, func(d *structs.Deployment) bool { return !d.Active() }), nil
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}

// UpdateDeploymentProgress writes a changed copy of a stored deployment:
// its groups' progress, its status. A deployment that already ended is
// left as it is, so that a late write cannot bring it back; one not
// stored is skipped. A deployment that becomes successful marks its job
// version stable.
func (s *StateStore) UpdateDeploymentProgress(index uint64, d *structs.Deployment) error {
	if err := checkDeployment(d); err != nil {
		return fmt.Errorf("update deployment: %w", err)
	}
	return s.write(func(txn *memdb.Txn) error {
		raw, err := txn.First(TableDeployments, indexID, d.ID)
		if err != nil {
			return fmt.Errorf("update deployment %q: %w", d.ID, err)
		}
		if raw == nil || !raw.(*structs.Deployment).Active() {
			return nil
		}
		cur := raw.(*structs.Deployment)
		d.CreateIndex, d.CreateTime = cur.CreateIndex, cur.CreateTime
		d.ModifyIndex = index
		if err := txn.Insert(TableDeployments, d); err != nil {
			return fmt.Errorf("update deployment %q: %w", d.ID, err)
		}
		if d.Status == structs.DeploymentStatusSuccessful {
			if err := markStable(txn, index, d.Namespace, d.JobID, d.JobVersion); err != nil {
				return fmt.Errorf("update deployment %q: %w", d.ID, err)
			}
		}
		return bumpIndex(txn, index, TableDeployments)
	})
}

// markStable marks a job version stable, in the versions table and, when
// it is the current version, in the jobs table. Neither is a change of
// the specification.
func markStable(txn *memdb.Txn, index uint64, namespace, jobID string, version uint64) error {
	raw, err := txn.First(TableJobVersions, indexID, namespace, jobID, version)
	if err != nil {
		return fmt.Errorf("read version %d of job %q: %w", version, jobID, err)
	}
	if raw != nil && !raw.(*structs.Job).Stable {
		v := *raw.(*structs.Job)
		v.Stable = true
		if err := txn.Insert(TableJobVersions, &v); err != nil {
			return err
		}
	}
	raw, err = txn.First(TableJobs, indexID, namespace, jobID)
	if err != nil {
		return fmt.Errorf("read job %q: %w", jobID, err)
	}
	if raw == nil || raw.(*structs.Job).Version != version || raw.(*structs.Job).Stable {
		return nil
	}
	j := *raw.(*structs.Job)
	j.Stable = true
	j.ModifyIndex = index
	if err := txn.Insert(TableJobs, &j); err != nil {
		return err
	}
	return bumpIndex(txn, index, TableJobs, TableJobVersions)
}

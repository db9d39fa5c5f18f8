package nomad

import (
	"context"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

func deploymentNamespace(d *structs.Deployment) string { return d.Namespace }

func deploymentModifyIndex(d *structs.Deployment) uint64 { return d.ModifyIndex }

// ListDeployments returns the deployments of q.Namespace whose ID starts
// with q.Prefix, those the caller may read.
func (s *Server) ListDeployments(ctx context.Context, q QueryOptions) ([]*structs.Deployment, QueryMeta, error) {
	return read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) ([]*structs.Deployment, uint64, error) {
		ds, err := st.Deployments(ws, q.Namespace, q.Prefix)
		ds = visible(q, ds, deploymentNamespace, acl.CapReadJob)
		return resultAt(st, ds, err, state.TableDeployments)
	})
}

// GetDeployment returns the deployment with the given ID, nil when there
// is none. A deployment ID is unique across namespaces.
func (s *Server) GetDeployment(ctx context.Context, id string, q QueryOptions) (*structs.Deployment, QueryMeta, error) {
	return read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) (*structs.Deployment, uint64, error) {
		d, err := st.DeploymentByID(ws, id)
		return objectAt(st, d, err, deploymentModifyIndex, state.TableDeployments)
	})
}

// JobDeployments returns the deployments of the job of q.Namespace with
// the given ID, newest first; exists is false when there is no such job.
// Unless all is set, only those of the job as it now exists count.
func (s *Server) JobDeployments(ctx context.Context, id string, all bool, q QueryOptions) (JobDeploymentsResult, QueryMeta, error) {
	return read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) (JobDeploymentsResult, uint64, error) {
		job, err := st.JobByID(ws, q.Namespace, id)
		if err != nil {
			return JobDeploymentsResult{}, 0, err
		}
		ds, err := st.DeploymentsByJob(ws, q.Namespace, id)
		if err != nil {
			return JobDeploymentsResult{}, 0, err
		}
		out := JobDeploymentsResult{Exists: job != nil}
		for _, d := range ds {
			if all || (job != nil && d.JobCreateIndex == job.CreateIndex) {
				out.Deployments = append(out.Deployments, d)
			}
		}
		return resultAt(st, out, nil, state.TableDeployments, state.TableJobs)
	})
}

// JobDeploymentsResult is what JobDeployments answers.
type JobDeploymentsResult struct {
	Exists      bool
	Deployments []*structs.Deployment
}

// DeploymentAllocations returns the allocations a deployment placed, nil
// when there is no such deployment.
func (s *Server) DeploymentAllocations(ctx context.Context, id string, q QueryOptions) ([]*structs.Allocation, QueryMeta, error) {
	return read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) ([]*structs.Allocation, uint64, error) {
		d, err := st.DeploymentByID(ws, id)
		if err != nil || d == nil {
			return resultAt[[]*structs.Allocation](st, nil, err, state.TableDeployments)
		}
		allocs, err := st.AllocsByJob(ws, d.Namespace, d.JobID)
		out := []*structs.Allocation{}
		for _, a := range allocs {
			if a.DeploymentID == id {
				out = append(out, a)
			}
		}
		return resultAt(st, out, err, state.TableDeployments, state.TableAllocs)
	})
}

package api

import "net/url"

// Deployments is the handle on the deployment endpoints.
type Deployments struct {
	client *Client
}

// Deployments returns the handle on the deployment endpoints.
func (c *Client) Deployments() *Deployments {
	return &Deployments{client: c}
}

func deploymentPath(action, id string) string {
	if action == "" {
		return "/v1/deployment/" + url.PathEscape(id)
	}
	return "/v1/deployment/" + action + "/" + url.PathEscape(id)
}

// List returns the deployments the options select; q.Prefix filters by
// ID prefix.
func (d *Deployments) List(q *QueryOptions) ([]*Deployment, *QueryMeta, error) {
	var resp []*Deployment
	qm, err := d.client.query("/v1/deployments", &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return resp, qm, nil
}

// PrefixList returns the deployments whose ID starts with prefix.
func (d *Deployments) PrefixList(prefix string) ([]*Deployment, *QueryMeta, error) {
	return d.List(&QueryOptions{Prefix: prefix})
}

// Info returns the deployment with the given ID.
func (d *Deployments) Info(id string, q *QueryOptions) (*Deployment, *QueryMeta, error) {
	var resp Deployment
	qm, err := d.client.query(deploymentPath("", id), &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return &resp, qm, nil
}

// Fail fails a running or paused deployment; a group with auto_revert
// then reverts the job to its latest stable version.
func (d *Deployments) Fail(id string, q *WriteOptions) (*DeploymentUpdateResponse, *WriteMeta, error) {
	return d.update("fail", id, &DeploymentFailRequest{DeploymentID: id}, q)
}

// Pause pauses (pause true) or resumes a deployment.
func (d *Deployments) Pause(id string, pause bool, q *WriteOptions) (*DeploymentUpdateResponse, *WriteMeta, error) {
	return d.update("pause", id, &DeploymentPauseRequest{DeploymentID: id, Pause: pause}, q)
}

// PromoteAll promotes every group of a deployment.
func (d *Deployments) PromoteAll(id string, q *WriteOptions) (*DeploymentUpdateResponse, *WriteMeta, error) {
	return d.update("promote", id, &DeploymentPromoteRequest{DeploymentID: id, All: true}, q)
}

// PromoteGroups promotes the named groups of a deployment.
func (d *Deployments) PromoteGroups(id string, groups []string, q *WriteOptions) (*DeploymentUpdateResponse, *WriteMeta, error) {
	return d.update("promote", id, &DeploymentPromoteRequest{DeploymentID: id, Groups: groups}, q)
}

// SetAllocHealth sets the health of allocations of a deployment whose
// groups use health_check = "manual".
func (d *Deployments) SetAllocHealth(id string, healthy, unhealthy []string, q *WriteOptions) (*DeploymentUpdateResponse, *WriteMeta, error) {
	return d.update("allocation-health", id, &DeploymentAllocHealthRequest{
		DeploymentID: id, HealthyAllocationIDs: healthy, UnhealthyAllocationIDs: unhealthy,
	}, q)
}

func (d *Deployments) update(action, id string, in any, q *WriteOptions) (*DeploymentUpdateResponse, *WriteMeta, error) {
	var resp DeploymentUpdateResponse
	wm, err := d.client.post(deploymentPath(action, id), in, &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return &resp, wm, nil
}

// Deployments returns a job's deployments, newest first.
func (j *Jobs) Deployments(jobID string, q *QueryOptions) ([]*Deployment, *QueryMeta, error) {
	var resp []*Deployment
	qm, err := j.client.query(jobPath(jobID, "deployments"), &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return resp, qm, nil
}

// LatestDeployment returns a job's latest deployment, or nil when it has
// none.
func (j *Jobs) LatestDeployment(jobID string, q *QueryOptions) (*Deployment, *QueryMeta, error) {
	var resp *Deployment
	qm, err := j.client.query(jobPath(jobID, "deployment"), &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return resp, qm, nil
}

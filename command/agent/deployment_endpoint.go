package agent

import (
	"context"
	"net/http"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/convert"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/structs"
)

// deploymentsList serves GET /v1/deployments.
func (s *HTTPServer) deploymentsList(w http.ResponseWriter, r *http.Request) (any, error) {
	return readList(s, w, r, (*nomad.Server).ListDeployments, convert.DeploymentToAPI)
}

// deploymentRead serves GET /v1/deployment/:id.
func (s *HTTPServer) deploymentRead(w http.ResponseWriter, r *http.Request) (any, error) {
	id, opts, err := httpserver.IDQuery(r, "deployment ID")
	if err != nil {
		return nil, err
	}
	return readOne(s, w, r, id, opts, (*nomad.Server).GetDeployment, "deployment not found", convert.DeploymentToAPI)
}

// deploymentAllocations serves GET /v1/deployment/allocations/:id.
func (s *HTTPServer) deploymentAllocations(w http.ResponseWriter, r *http.Request) (any, error) {
	id, opts, err := httpserver.IDQuery(r, "deployment ID")
	if err != nil {
		return nil, err
	}
	allocs, err := serveRead(s, w, r, opts, func(srv *nomad.Server, ctx context.Context, q nomad.QueryOptions) ([]*structs.Allocation, nomad.QueryMeta, error) {
		return srv.DeploymentAllocations(ctx, id, q)
	})
	if err != nil {
		return nil, err
	}
	return convert.AllocStubs(allocs), nil
}

// jobDeployments serves GET /v1/job/:id/deployments.
func (s *HTTPServer) jobDeployments(w http.ResponseWriter, r *http.Request) (any, error) {
	res, err := s.readJobDeployments(w, r)
	if err != nil {
		return nil, err
	}
	return convert.DeploymentsToAPI(res.Deployments), nil
}

// jobDeployment serves GET /v1/job/:id/deployment, which Nomad's `job
// status` reads: the job's latest deployment, or null when it has none.
func (s *HTTPServer) jobDeployment(w http.ResponseWriter, r *http.Request) (any, error) {
	res, err := s.readJobDeployments(w, r)
	if err != nil {
		return nil, err
	}
	if len(res.Deployments) == 0 {
		return jsonNull{}, nil
	}
	return convert.DeploymentToAPI(res.Deployments[0]), nil
}

func (s *HTTPServer) readJobDeployments(w http.ResponseWriter, r *http.Request) (nomad.JobDeploymentsResult, error) {
	id, opts, err := httpserver.IDQuery(r, "job ID")
	if err != nil {
		return nomad.JobDeploymentsResult{}, err
	}
	all, err := httpserver.ParseBoolParam(r, "all")
	if err != nil {
		return nomad.JobDeploymentsResult{}, err
	}
	res, err := serveRead(s, w, r, opts, func(srv *nomad.Server, ctx context.Context, q nomad.QueryOptions) (nomad.JobDeploymentsResult, nomad.QueryMeta, error) {
		return srv.JobDeployments(ctx, id, all, q)
	})
	if err != nil {
		return nomad.JobDeploymentsResult{}, err
	}
	if !res.Exists && len(res.Deployments) == 0 {
		return res, httpserver.NotFound("job not found")
	}
	return res, nil
}

// deploymentFail serves PUT/POST /v1/deployment/fail/:id.
func (s *HTTPServer) deploymentFail(w http.ResponseWriter, r *http.Request) (any, error) {
	return s.deploymentUpdate(w, r, func(id string) (*nomad.DeploymentUpdateRequest, error) {
		return &nomad.DeploymentUpdateRequest{DeploymentID: id, Action: nomad.DeploymentActionFail}, nil
	})
}

// deploymentPause serves PUT/POST /v1/deployment/pause/:id: Pause true
// pauses, false resumes.
func (s *HTTPServer) deploymentPause(w http.ResponseWriter, r *http.Request) (any, error) {
	return s.deploymentUpdate(w, r, func(id string) (*nomad.DeploymentUpdateRequest, error) {
		var body api.DeploymentPauseRequest
		if err := decodeDeploymentBody(r, id, &body, &body.DeploymentID); err != nil {
			return nil, err
		}
		action := nomad.DeploymentActionResume
		if body.Pause {
			action = nomad.DeploymentActionPause
		}
		return &nomad.DeploymentUpdateRequest{DeploymentID: id, Action: action}, nil
	})
}

// deploymentPromote serves PUT/POST /v1/deployment/promote/:id.
func (s *HTTPServer) deploymentPromote(w http.ResponseWriter, r *http.Request) (any, error) {
	return s.deploymentUpdate(w, r, func(id string) (*nomad.DeploymentUpdateRequest, error) {
		var body api.DeploymentPromoteRequest
		if err := decodeDeploymentBody(r, id, &body, &body.DeploymentID); err != nil {
			return nil, err
		}
		return &nomad.DeploymentUpdateRequest{DeploymentID: id, Action: nomad.DeploymentActionPromote, Groups: body.Groups}, nil
	})
}

// deploymentAllocHealth serves PUT/POST
// /v1/deployment/allocation-health/:id.
func (s *HTTPServer) deploymentAllocHealth(w http.ResponseWriter, r *http.Request) (any, error) {
	return s.deploymentUpdate(w, r, func(id string) (*nomad.DeploymentUpdateRequest, error) {
		var body api.DeploymentAllocHealthRequest
		if err := decodeDeploymentBody(r, id, &body, &body.DeploymentID); err != nil {
			return nil, err
		}
		if len(body.HealthyAllocationIDs)+len(body.UnhealthyAllocationIDs) == 0 {
			return nil, httpserver.BadRequest("must specify at least one healthy or unhealthy allocation ID")
		}
		return &nomad.DeploymentUpdateRequest{
			DeploymentID: id, Action: nomad.DeploymentActionAllocHealth,
			Healthy: body.HealthyAllocationIDs, Unhealthy: body.UnhealthyAllocationIDs,
		}, nil
	})
}

// decodeDeploymentBody decodes a deployment write's body, whose
// DeploymentID, when set, must be the one the path names.
func decodeDeploymentBody(r *http.Request, id string, out any, bodyID *string) error {
	if err := httpserver.DecodeBody(r, out, "deployment request"); err != nil {
		return err
	}
	if *bodyID != "" && *bodyID != id {
		return httpserver.BadRequest("deployment ID %q in the body does not match %q in the path", *bodyID, id)
	}
	return nil
}

func (s *HTTPServer) deploymentUpdate(w http.ResponseWriter, r *http.Request, build func(id string) (*nomad.DeploymentUpdateRequest, error)) (any, error) {
	srv, id, err := s.serverWrite(r, "deployment ID")
	if err != nil {
		return nil, err
	}
	if err := s.checkRegion(r.URL.Query().Get("region")); err != nil {
		return nil, err
	}
	req, err := build(id)
	if err != nil {
		return nil, err
	}
	resp, err := srv.UpdateDeployment(r.Context(), req)
	if err != nil {
		return nil, err
	}
	httpserver.SetIndex(w, resp.Index)
	return &api.DeploymentUpdateResponse{
		EvalID:                resp.EvalID,
		EvalCreateIndex:       resp.EvalCreateIndex,
		DeploymentModifyIndex: resp.DeploymentModifyIndex,
		RevertedJobVersion:    resp.RevertedJobVersion,
	}, nil
}

package agent

import (
	"net/http"

	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/structs"
)

// jobRevertRequest is the body of PUT /v1/job/:id/revert, as Nomad's
// client sends it (its Consul and Vault tokens have no use here).
type jobRevertRequest struct {
	JobID      string
	JobVersion uint64
	// EnforcePriorVersion, when set, is the version the job must be at.
	EnforcePriorVersion *uint64
}

// jobRevert serves PUT and POST /v1/job/:id/revert: the job is registered
// again as it was at an earlier version, which makes a new version. The
// register enforces the job modify index read, so that a change made
// meanwhile is a conflict rather than overwritten.
func (s *HTTPServer) jobRevert(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, ns, id, err := s.jobWrite(r)
	if err != nil {
		return nil, err
	}
	var req jobRevertRequest
	if err := httpserver.DecodeBody(r, &req, "job revert request"); err != nil {
		return nil, err
	}
	if req.JobID != "" && req.JobID != id {
		return nil, httpserver.BadRequest("JobID %q in the body does not match %q in the URL", req.JobID, id)
	}
	versions, _, err := srv.JobVersions(r.Context(), id, nomad.QueryOptions{Namespace: ns})
	if err != nil {
		return nil, err
	}
	current, target, err := revertTarget(versions, id, req)
	if err != nil {
		return nil, err
	}
	if err := nomad.AllowJobRegister(requestIdentity(r).acl, target); err != nil {
		return nil, err
	}
	resp, err := srv.RegisterJob(r.Context(), &nomad.JobRegisterRequest{
		Job:            target,
		EnforceIndex:   true,
		JobModifyIndex: current.JobModifyIndex,
	})
	if err != nil {
		return nil, err
	}
	return registerAnswer(w, resp), nil
}

// revertTarget picks, from the job's versions (newest first), the current
// one and the one to revert to, refusing what Nomad refuses: no such job
// or version, the current version itself, and a job that is not at the
// version the request enforces.
func revertTarget(versions []*structs.Job, id string, req jobRevertRequest) (current, target *structs.Job, err error) {
	if len(versions) == 0 {
		return nil, nil, httpserver.NotFound("job not found")
	}
	current = versions[0]
	if req.EnforcePriorVersion != nil && *req.EnforcePriorVersion != current.Version {
		return nil, nil, httpserver.BadRequest("current job %q has version %d; enforcing version %d", id, current.Version, *req.EnforcePriorVersion)
	}
	if req.JobVersion == current.Version {
		return nil, nil, httpserver.BadRequest("can't revert job %q to its current version %d", id, current.Version)
	}
	for _, v := range versions {
		if v.Version == req.JobVersion {
			return current, v.Copy(), nil
		}
	}
	return nil, nil, httpserver.NotFound("job %q has no version %d", id, req.JobVersion)
}

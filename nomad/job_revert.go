package nomad

import (
	"context"
	"errors"
	"fmt"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/nomad/auth"
	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/structs"
)

// JobRevertRequest registers a job again as it was at an earlier version.
type JobRevertRequest struct {
	AuthRequest
	WriteDeadline
	Namespace  string
	JobID      string
	JobVersion uint64
	// EnforcePriorVersion, when set, is the version the job must be at.
	EnforcePriorVersion *uint64
}

// RevertJob registers the job again as it was at req.JobVersion, which
// makes a new version, enforcing the current version's job modify index so
// that a change made meanwhile is a conflict rather than overwritten. It
// refuses what Nomad refuses: no such job or version, the current version
// itself, and a job that is not at the version the request enforces. The
// caller needs what registering the version needs (auth.JobRegister),
// checked once, on the leader, before anything about the job is told.
func (s *Server) RevertJob(ctx context.Context, req *JobRevertRequest) (*JobRegisterResponse, error) {
	return leaderWrite(ctx, s, "Job.Revert", req, s.revertJobLocal)
}

func (s *Server) revertJobLocal(ctx context.Context, req *JobRevertRequest) (*JobRegisterResponse, error) {
	if err := s.leaderBarrier(ctx); err != nil {
		return nil, err
	}
	var current, target *structs.Job
	err := s.authorize(ctx, func(a *acl.ACL) error {
		if err := auth.JobRevert(a, req.Namespace); err != nil {
			return err
		}
		var err error
		if current, target, err = s.revertTarget(req); err != nil {
			return err
		}
		return auth.JobRegister(a, target)
	})
	if err != nil {
		return nil, err
	}
	return s.registerJobLocal(ctx, &JobRegisterRequest{
		Job:            target,
		EnforceIndex:   true,
		JobModifyIndex: current.JobModifyIndex,
	})
}

// revertTarget picks, from the stored versions of the job, the current
// one and the one to revert to.
func (s *Server) revertTarget(req *JobRevertRequest) (current, target *structs.Job, err error) {
	versions, err := s.State().JobVersionsByID(nil, req.Namespace, req.JobID)
	if err != nil {
		return nil, nil, err
	}
	if len(versions) == 0 {
		return nil, nil, nomadrpc.WithKind(ErrNotFound, errors.New("job not found"))
	}
	current = versions[0]
	if req.EnforcePriorVersion != nil && *req.EnforcePriorVersion != current.Version {
		return nil, nil, invalidf("current job %q has version %d; enforcing version %d", req.JobID, current.Version, *req.EnforcePriorVersion)
	}
	if req.JobVersion == current.Version {
		return nil, nil, invalidf("can't revert job %q to its current version %d", req.JobID, current.Version)
	}
	for _, v := range versions {
		if v.Version == req.JobVersion {
			return current, v.Copy(), nil
		}
	}
	return nil, nil, nomadrpc.WithKind(ErrNotFound, fmt.Errorf("job %q has no version %d", req.JobID, req.JobVersion))
}

// Revert serves RevertJob.
func (e *jobRPC) Revert(args *JobRevertRequest, reply *JobRegisterResponse) error {
	return e.srv.serveUserRPC(args.AuthToken, func(ctx context.Context) error {
		return fill(reply)(e.srv.RevertJob(ctx, args))
	})
}

package nomad

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"time"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/nomad/auth"
	"github.com/drover-io/drover/nomad/logentry"
	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/structs"
)

// JobDispatchRequest dispatches a parameterized job: it creates a child
// job with the request's inputs, which runs like any batch job.
type JobDispatchRequest struct {
	AuthRequest
	WriteDeadline
	Namespace string
	JobID     string
	Payload   []byte            `json:",omitempty"`
	Meta      map[string]string `json:",omitempty"`
	// IdempotencyToken, when set, makes a second dispatch with the same
	// token return the child the first created instead of a new one.
	IdempotencyToken string `json:",omitempty"`
	// IDPrefixTemplate goes into the child's ID, after "dispatch-".
	IDPrefixTemplate string `json:",omitempty"`
	// Priority, when not 0, is the child's priority instead of the
	// parent's (1 to 100).
	Priority int `json:",omitempty"`
	// MaxRunDuration is Drover's: the child's groups' max_run_duration,
	// bounded by the parent's max_run_duration_max. Nil keeps the
	// groups' own.
	MaxRunDuration *time.Duration `json:",omitempty"`
}

// JobDispatchResponse reports a dispatch: the child and its evaluation
// (none for a periodic child, whose launches get theirs, nor for a
// dispatch an idempotency token answered with an existing child).
type JobDispatchResponse struct {
	DispatchedJobID string
	EvalID          string
	EvalCreateIndex uint64
	JobCreateIndex  uint64
	Index           uint64
}

// DispatchJob dispatches the parameterized job req.JobID. An unknown job
// is an ErrNotFound error; one that is not parameterized or is stopped,
// or inputs the job does not accept, an ErrInvalidRequest error that
// lists every problem.
func (s *Server) DispatchJob(ctx context.Context, req *JobDispatchRequest) (*JobDispatchResponse, error) {
	if req == nil {
		return nil, invalidf("job dispatch: no request")
	}
	return userWrite(ctx, s, "Job.Dispatch", req, allowDispatch, s.dispatchJobLocal)
}

func allowDispatch(a *acl.ACL, req *JobDispatchRequest) error {
	return auth.JobDispatch(a, req.Namespace)
}

func (s *Server) dispatchJobLocal(ctx context.Context, req *JobDispatchRequest) (*JobDispatchResponse, error) {
	if req.Priority != 0 && (req.Priority < 1 || req.Priority > 100) {
		return nil, invalidf("job dispatch: priority must be 1 to 100, got %d", req.Priority)
	}
	if req.IdempotencyToken != "" {
		// The look-up of an earlier child and the write of a new one
		// must not interleave with another dispatch of the same token.
		s.dispatchMu.Lock()
		defer s.dispatchMu.Unlock()
	}
	parent, err := s.leaderJob(ctx, "job dispatch", req.Namespace, req.JobID)
	if err != nil {
		return nil, err
	}
	in := structs.DispatchInputs{Payload: req.Payload, Meta: req.Meta, MaxRunDuration: req.MaxRunDuration}
	if err := parent.CheckDispatch(in); err != nil {
		return nil, nomadrpc.WithKind(ErrInvalidRequest, fmt.Errorf("dispatch job %q: %w", req.JobID, err))
	}
	if req.IdempotencyToken != "" {
		if resp, err := s.dispatchedBefore(parent, req.IdempotencyToken); resp != nil || err != nil {
			return resp, err
		}
	}
	now := time.Now()
	child, err := deriveDispatchChild(parent, req, now)
	if err != nil {
		return nil, err
	}
	if err := child.Validate(); err != nil {
		return nil, nomadrpc.WithKind(ErrInvalidRequest, fmt.Errorf("dispatch job %q: child %q: %w", req.JobID, child.ID, err))
	}
	ns, err := s.State().NamespaceByName(nil, child.Namespace)
	if err != nil {
		return nil, fmt.Errorf("dispatch job %q: %w", req.JobID, err)
	}
	if err := applyNamespaceTimeLimits(ns, child); err != nil {
		return nil, fmt.Errorf("dispatch job %q: %w", req.JobID, err)
	}
	entry := &logentry.JobRegister{Job: child, NamespaceChecked: true}
	if !child.LaunchesChildren() {
		entry.Eval = newJobEval(child, structs.EvalTriggerJobRegister, now.UnixNano())
	}
	index, err := s.raftApply(ctx, logentry.MsgJobRegister, entry)
	if err != nil {
		return nil, fmt.Errorf("dispatch job %q: register child %q: %w", req.JobID, child.ID, err)
	}
	resp := &JobDispatchResponse{DispatchedJobID: child.ID, JobCreateIndex: index, Index: index}
	if entry.Eval != nil {
		resp.EvalID = entry.Eval.ID
		resp.EvalCreateIndex = index
	}
	return resp, nil
}

// dispatchedBefore answers a dispatch whose idempotency token an earlier
// dispatch of the same parent used, with the child it created, as
// Nomad does, whatever that child's status; nil when none did.
func (s *Server) dispatchedBefore(parent *structs.Job, token string) (*JobDispatchResponse, error) {
	children, err := s.State().JobChildren(nil, parent.Namespace, parent.ID)
	if err != nil {
		return nil, err
	}
	for _, c := range children {
		if c.Dispatched && c.DispatchIdempotencyToken == token {
			return &JobDispatchResponse{DispatchedJobID: c.ID, JobCreateIndex: c.CreateIndex, Index: c.ModifyIndex}, nil
		}
	}
	return nil, nil
}

// deriveDispatchChild is the child a dispatch of parent creates: the
// parent's job with the dispatch's inputs, the meta merged over the
// parent's, named "<parent>/dispatch-[<prefix>-]<unix>-<8 hex>".
func deriveDispatchChild(parent *structs.Job, req *JobDispatchRequest, now time.Time) (*structs.Job, error) {
	suffix := make([]byte, 4)
	if _, err := rand.Read(suffix); err != nil {
		return nil, fmt.Errorf("dispatch job %q: %w", parent.ID, err)
	}
	child := parent.Copy()
	child.ID = DispatchedID(parent.ID, req.IDPrefixTemplate, now, hex.EncodeToString(suffix))
	child.Name = child.ID
	child.ParentID = parent.ID
	child.Dispatched = true
	child.Payload = req.Payload
	child.DispatchIdempotencyToken = req.IdempotencyToken
	if len(req.Meta) > 0 {
		if child.Meta == nil {
			child.Meta = make(map[string]string, len(req.Meta))
		}
		maps.Copy(child.Meta, req.Meta)
	}
	if req.Priority != 0 {
		child.Priority = req.Priority
	}
	if d := req.MaxRunDuration; d != nil {
		child.DispatchMaxRunDuration = new(*d)
		for _, tg := range child.TaskGroups {
			tg.MaxRunDuration = new(*d)
		}
	}
	child.Stop = false
	child.Status = structs.JobStatusPending
	child.StatusDescription = ""
	child.Stable = false
	child.Version = 0
	child.SubmitTime = now.UnixNano()
	child.ResolveLaunchDeadline(child.SubmitTime)
	child.CreateIndex, child.ModifyIndex, child.JobModifyIndex = 0, 0, 0
	return child, nil
}

// DispatchedID names the child of a dispatch of parentID at now:
// "<parent>/dispatch-<unix>-<suffix>", with "<prefix>-" before the time
// when the dispatch gave an ID prefix template.
func DispatchedID(parentID, prefix string, now time.Time, suffix string) string {
	if prefix != "" {
		return fmt.Sprintf("%s%s%s-%d-%s", parentID, structs.DispatchLaunchSuffix, prefix, now.Unix(), suffix)
	}
	return fmt.Sprintf("%s%s%d-%s", parentID, structs.DispatchLaunchSuffix, now.Unix(), suffix)
}

// Dispatch serves DispatchJob.
func (e *jobRPC) Dispatch(args *JobDispatchRequest, reply *JobDispatchResponse) error {
	return e.srv.serveUserRPC(args.AuthToken, func(ctx context.Context) error {
		return fill(reply)(e.srv.DispatchJob(ctx, args))
	})
}

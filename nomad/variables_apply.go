package nomad

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/nomad/auth"
	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/nomad/varlock"
	"github.com/drover-io/drover/structs"
)

// Default lock times, as Nomad's client has them.
const (
	defaultVariableLockTTL   = 15 * time.Second
	defaultVariableLockDelay = 15 * time.Second
)

// VariablesApplyRequest writes a variable: Op is one of structs.VarOp*.
// Var names the variable (Namespace, Path) and carries, for a set or a
// lock taken, its items; a write of a locked variable, and a lock's
// renewal or release, carries the lock's ID in Var.Lock.
type VariablesApplyRequest struct {
	AuthRequest
	WriteDeadline
	Op  string
	Var *structs.VariableDecrypted
	// CheckIndex, when set, makes a set or delete check-and-set: the
	// variable's ModifyIndex must be it (0: the variable must not exist).
	CheckIndex *uint64 `json:",omitempty"`
}

// VariablesApplyResponse is a write's outcome: the variable as written
// (Output; its metadata only for a lock's renewal or release, nil for a
// delete), or, when the check-and-set index or the lock refused it, the
// variable as it is (Conflict; its metadata only for a caller who may
// not read it).
type VariablesApplyResponse struct {
	Output   *structs.VariableDecrypted `json:",omitempty"`
	Conflict *structs.VariableDecrypted `json:",omitempty"`
	Index    uint64
}

// ApplyVariable makes a write of a variable, on the leader: it seals the
// items there, with the keyring's active key, before the entry enters
// the log. A set and a lock need write on the path, a delete destroy.
func (s *Server) ApplyVariable(ctx context.Context, req *VariablesApplyRequest) (*VariablesApplyResponse, error) {
	if req.Var == nil {
		return nil, invalidf("variable write: no variable")
	}
	req.Var.Namespace = defaultNamespace(req.Var.Namespace)
	return userWrite(ctx, s, "Variables.Apply", req, allowVariableApply, s.applyVariableLocal)
}

func allowVariableApply(a *acl.ACL, req *VariablesApplyRequest) error {
	capability := acl.VariablesWrite
	if req.Op == structs.VarOpDelete {
		capability = acl.VariablesDestroy
	}
	return auth.Variable(a, req.Var.Namespace, req.Var.Path, capability)
}

func (s *Server) applyVariableLocal(ctx context.Context, req *VariablesApplyRequest) (*VariablesApplyResponse, error) {
	if err := s.leaderBarrier(ctx); err != nil {
		return nil, err
	}
	if err := s.checkVariableRequest(req); err != nil {
		return nil, err
	}
	st := s.State()
	cur, err := st.VariableByPath(nil, req.Var.Namespace, req.Var.Path)
	if err != nil {
		return nil, err
	}
	if req.Op == structs.VarOpLockRenew {
		return s.renewVariableLock(ctx, req, cur)
	}
	w, err := variableWrite(st, req)
	if err != nil {
		return nil, err
	}
	if err := state.CheckVariableWrite(w, cur); err != nil {
		return s.variableConflict(ctx, req, err)
	}
	index, err := s.raftApply(ctx, logentry.MsgVariableWrite, &logentry.VariableWrite{VariableWrite: *w})
	if err != nil {
		// The variable changed between the check and the entry.
		return s.variableConflict(ctx, req, err)
	}
	key := varlock.Key{Namespace: req.Var.Namespace, Path: req.Var.Path}
	switch req.Op {
	case structs.VarOpLockAcquire:
		s.varLocks.Arm(key, w.Var.Lock.ID, w.Var.Lock.TTL, w.Var.Lock.LockDelay)
	case structs.VarOpLockRelease:
		s.varLocks.Disarm(key)
	case structs.VarOpDelete:
		return &VariablesApplyResponse{Index: index}, nil
	}
	out, err := s.storedVariable(req.Var.Namespace, req.Var.Path)
	if err != nil {
		return nil, err
	}
	if out != nil && req.Op == structs.VarOpLockRelease {
		out.Items = nil
	}
	return &VariablesApplyResponse{Output: out, Index: index}, nil
}

// checkVariableRequest reports what is wrong with the request itself.
func (s *Server) checkVariableRequest(req *VariablesApplyRequest) error {
	v := req.Var
	switch req.Op {
	case structs.VarOpSet, structs.VarOpLockAcquire:
		if err := v.Validate(req.Op == structs.VarOpLockAcquire); err != nil {
			if errors.Is(err, structs.ErrVariableNoItems) && len(v.Items) == 0 {
				return invalidf("%v", structs.ErrVariableNoItems)
			}
			return invalidf("%v", err)
		}
		ns, err := s.State().NamespaceByName(nil, v.Namespace)
		if err != nil {
			return err
		}
		if ns == nil {
			return invalidf("namespace %q does not exist", v.Namespace)
		}
	case structs.VarOpDelete:
		if err := structs.ValidateVariablePath(v.Path); err != nil {
			return invalidf("%v", err)
		}
	case structs.VarOpLockRenew, structs.VarOpLockRelease:
		if err := structs.ValidateVariablePath(v.Path); err != nil {
			return invalidf("%v", err)
		}
		if v.Lock == nil || v.Lock.ID == "" {
			return invalidf("variable %q: %s needs the lock's ID", v.Path, req.Op)
		}
		if req.Op == structs.VarOpLockRelease && len(v.Items) > 0 {
			return invalidf("variable %q: a lock's release cannot change the items", v.Path)
		}
	default:
		return invalidf("unknown variable operation %q", req.Op)
	}
	return nil
}

// variableWrite is the entry of req, its items sealed.
func variableWrite(st *state.StateStore, req *VariablesApplyRequest) (*state.VariableWrite, error) {
	now := time.Now().UnixNano()
	v := req.Var
	w := &state.VariableWrite{Op: req.Op, CheckIndex: req.CheckIndex}
	if v.Lock != nil {
		w.LockID = v.Lock.ID
	}
	meta := structs.VariableMetadata{Namespace: v.Namespace, Path: v.Path, CreateTime: now, ModifyTime: now}
	switch req.Op {
	case structs.VarOpSet:
		sealed, err := sealVariable(st, &structs.VariableDecrypted{VariableMetadata: meta, Items: v.Items})
		if err != nil {
			return nil, err
		}
		w.Var = sealed
	case structs.VarOpLockAcquire:
		lock, err := newVariableLock(v.Lock)
		if err != nil {
			return nil, err
		}
		w.Var = &structs.VariableEncrypted{VariableMetadata: meta}
		if len(v.Items) > 0 {
			if w.Var, err = sealVariable(st, &structs.VariableDecrypted{VariableMetadata: meta, Items: v.Items}); err != nil {
				return nil, err
			}
		}
		w.Var.Lock, w.LockID = lock, ""
	default:
		w.Var = &structs.VariableEncrypted{VariableMetadata: meta}
	}
	return w, nil
}

// newVariableLock is the lock a lock-acquire takes: the times asked for
// (Nomad's defaults when not), and a new ID.
func newVariableLock(asked *structs.VariableLock) (*structs.VariableLock, error) {
	lock := &structs.VariableLock{ID: structs.GenerateUUID(), TTL: defaultVariableLockTTL, LockDelay: defaultVariableLockDelay}
	if asked != nil {
		if asked.TTL != 0 {
			lock.TTL = asked.TTL
		}
		if asked.LockDelay != 0 {
			lock.LockDelay = asked.LockDelay
		}
	}
	if err := lock.ValidateLockTimes(); err != nil {
		return nil, invalidf("%v", err)
	}
	return lock, nil
}

// renewVariableLock starts the TTL of the lock req names afresh. It
// writes nothing: the timers are the leader's.
func (s *Server) renewVariableLock(ctx context.Context, req *VariablesApplyRequest, cur *structs.VariableEncrypted) (*VariablesApplyResponse, error) {
	if cur == nil || cur.Lock == nil || cur.Lock.ID != req.Var.Lock.ID ||
		!s.varLocks.Renew(varlock.Key{Namespace: cur.Namespace, Path: cur.Path}, cur.Lock.ID) {
		return s.variableConflict(ctx, req, fmt.Errorf("%w: %q is not held by lock %q", state.ErrVariableLocked, req.Var.Path, req.Var.Lock.ID))
	}
	m := cur.Metadata()
	return &VariablesApplyResponse{Output: &structs.VariableDecrypted{VariableMetadata: m}, Index: cur.ModifyIndex}, nil
}

// variableConflict answers a write that cause refused: with the variable
// as it is when cause is a check-and-set or lock conflict, else cause.
func (s *Server) variableConflict(ctx context.Context, req *VariablesApplyRequest, cause error) (*VariablesApplyResponse, error) {
	if !errors.Is(cause, state.ErrVariableConflict) && !errors.Is(cause, state.ErrVariableLocked) {
		return nil, cause
	}
	cur, err := s.storedVariable(req.Var.Namespace, req.Var.Path)
	if err != nil {
		return nil, err
	}
	if cur == nil {
		cur = &structs.VariableDecrypted{VariableMetadata: structs.VariableMetadata{Namespace: req.Var.Namespace, Path: req.Var.Path}}
	}
	a, _ := auth.Caller(ctx)
	if !s.config.ACLEnabled {
		a = acl.Management()
	}
	index, err := s.State().Index(state.TableVariables)
	if err != nil {
		return nil, err
	}
	return &VariablesApplyResponse{Conflict: visibleVariable(a, cur), Index: index}, nil
}

// storedVariable is the variable as this server holds it, decrypted; nil
// when there is none.
func (s *Server) storedVariable(namespace, path string) (*structs.VariableDecrypted, error) {
	st := s.State()
	sealed, err := st.VariableByPath(nil, namespace, path)
	if err != nil || sealed == nil {
		return nil, err
	}
	return openVariable(st, sealed)
}

// Apply serves ApplyVariable, forwarded by another server.
func (e *variablesRPC) Apply(args *VariablesApplyRequest, reply *VariablesApplyResponse) error {
	return e.srv.serveUserRPC(args.AuthToken, func(ctx context.Context) error {
		return fill(reply)(e.srv.ApplyVariable(ctx, args))
	})
}

package nomad

import (
	"context"
	"time"

	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/nomad/varlock"
	"github.com/drover-io/drover/structs"
)

// runVariableLocks is the leader's loop of variable locks: it arms a full
// TTL for every lock the state holds (a lock taken under the previous
// leader restarts its TTL here), keeps the timers while this server
// leads, and drops them when it stops.
func (s *Server) runVariableLocks(ctx context.Context) {
	s.varLocks.SetEnabled(true)
	defer s.varLocks.SetEnabled(false)
	vars, err := s.State().VariablesByPrefix(nil, state.AllNamespaces, "")
	if err != nil {
		s.logger.Error("arm the timers of variable locks", "error", err)
	}
	for _, v := range vars {
		if l := v.Lock; l != nil {
			s.varLocks.Arm(varlock.Key{Namespace: v.Namespace, Path: v.Path}, l.ID, l.TTL, l.LockDelay)
		}
	}
	<-ctx.Done()
}

// expireVariableLock releases a lock its holder lost: its TTL ran out
// without a renewal, and its delay has passed. A lock released or taken
// anew meanwhile is left alone (the entry is refused where it lands).
func (s *Server) expireVariableLock(k varlock.Key, lockID string) {
	ctx, cancel := context.WithTimeout(s.shutdownCtx, s.config.RaftApplyTimeout)
	defer cancel()
	w := &logentry.VariableWrite{VariableWrite: state.VariableWrite{
		Op: structs.VarOpLockRelease,
		Var: &structs.VariableEncrypted{VariableMetadata: structs.VariableMetadata{
			Namespace: k.Namespace, Path: k.Path, ModifyTime: time.Now().UnixNano()}},
		LockID: lockID,
	}}
	if _, err := s.raftApply(ctx, logentry.MsgVariableWrite, w); err != nil {
		s.logger.Warn("release an expired variable lock", "namespace", k.Namespace, "path", k.Path, "error", err)
		return
	}
	s.logger.Info("released an expired variable lock", "namespace", k.Namespace, "path", k.Path)
}

package nomad

import (
	"context"
	"fmt"

	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// rekeyBatch bounds the variables one rekey entry carries: at most
// MaxVariableSize each, far below what a raft entry should be.
const rekeyBatch = 32

// rekeyVariables seals every variable that another root key sealed with
// key, the active one, in entries of rekeyBatch variables, and returns
// how many it sealed anew. It runs on the leader, for a full rotation;
// a variable written meanwhile (with key already) is left as written.
func (s *Server) rekeyVariables(ctx context.Context, key *structs.RootKey) (int, error) {
	st := s.State()
	vars, err := st.VariablesByPrefix(nil, state.AllNamespaces, "")
	if err != nil {
		return 0, err
	}
	var batch []*structs.VariableEncrypted
	done := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if _, err := s.raftApply(ctx, logentry.MsgVariablesRekey, &logentry.VariablesRekey{Vars: batch}); err != nil {
			return fmt.Errorf("re-encrypt variables: %w", err)
		}
		done += len(batch)
		batch = nil
		return nil
	}
	for _, v := range vars {
		if v.KeyID == key.KeyID || v.Data == nil {
			continue
		}
		clear, err := openVariable(st, v)
		if err != nil {
			return done, err
		}
		sealed, err := structs.SealVariable(key, clear)
		if err != nil {
			return done, err
		}
		batch = append(batch, sealed)
		if len(batch) == rekeyBatch {
			if err := flush(); err != nil {
				return done, err
			}
		}
	}
	return done, flush()
}

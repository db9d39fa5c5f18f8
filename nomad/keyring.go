package nomad

import (
	"context"
	"crypto/ed25519"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// keyringInitRetry is the pause between attempts to write the first root
// key.
const keyringInitRetry = time.Second

// initializeKeyring makes the keyring's first root key when the leader
// finds the keyring empty: on a new cluster's first leadership. It runs
// among the leader's loops and ends once the keyring holds a key, or when
// leadership ends. The entry writes nothing if another leader's key landed
// first.
func (s *Server) initializeKeyring(ctx context.Context) {
	for {
		err := s.writeFirstRootKey(ctx)
		if err == nil {
			return
		}
		s.logger.Warn("initialize the keyring", "error", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(keyringInitRetry):
		}
	}
}

func (s *Server) writeFirstRootKey(ctx context.Context) error {
	keys, err := s.State().RootKeys(nil)
	if err != nil || len(keys) > 0 {
		return err
	}
	key, err := structs.NewRootKey(time.Now())
	if err != nil {
		return err
	}
	if _, err := s.raftApply(ctx, logentry.MsgRootKeyUpsert, &logentry.RootKeyUpsert{Key: key, IfEmpty: true}); err != nil {
		return err
	}
	s.logger.Info("initialized the keyring", "key_id", key.KeyID)
	return nil
}

// PublicKey is the public half of a root key, as the JWKS publishes it.
type PublicKey struct {
	KeyID string
	Key   ed25519.PublicKey
}

// KeyringPublicKeys returns the public keys of every root key, active and
// inactive: each verifies what it signed until it is removed.
func (s *Server) KeyringPublicKeys(ctx context.Context, q QueryOptions) ([]PublicKey, QueryMeta, error) {
	return read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) ([]PublicKey, uint64, error) {
		keys, err := st.RootKeys(ws)
		public := make([]PublicKey, 0, len(keys))
		for _, k := range keys {
			public = append(public, PublicKey{KeyID: k.KeyID, Key: k.PublicKey()})
		}
		return resultAt(st, public, err, state.TableRootKeys)
	})
}

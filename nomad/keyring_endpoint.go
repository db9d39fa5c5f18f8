package nomad

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-io/drover/nomad/logentry"
	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// RootKeyRotateRequest asks for a new active root key. Full also
// re-encrypts every variable with it, so that the older keys encrypt
// nothing and may be removed.
type RootKeyRotateRequest struct {
	AuthRequest
	WriteDeadline
	Full bool `json:",omitempty"`
}

// RootKeyRotateResponse is the key a rotation made, and the index it was
// written at. The key's own CreateIndex and ModifyIndex are left at 0, as
// Nomad answers them: Nomad's client waits for a list past the key's
// CreateIndex, which with the real index would block until the wait ends.
type RootKeyRotateResponse struct {
	Key   *structs.RootKeyMeta
	Index uint64
}

// RootKeyDeleteRequest removes an inactive root key.
type RootKeyDeleteRequest struct {
	AuthRequest
	WriteDeadline
	KeyID string
	// Force removes the key even while allocations that may hold
	// identities it signed still run.
	Force bool
}

// ListRootKeys returns the metadata of every root key, oldest first,
// never their secrets.
func (s *Server) ListRootKeys(ctx context.Context, q QueryOptions) ([]*structs.RootKeyMeta, QueryMeta, error) {
	return read(s, ctx, q, func(ws memdb.WatchSet, st *state.StateStore) ([]*structs.RootKeyMeta, uint64, error) {
		keys, err := st.RootKeys(ws)
		metas := make([]*structs.RootKeyMeta, 0, len(keys))
		for _, k := range keys {
			metas = append(metas, k.Meta())
		}
		return resultAt(st, metas, err, state.TableRootKeys)
	})
}

// RotateRootKey makes a new root key the active one; the key that was
// active turns inactive and keeps verifying what it signed, and
// decrypting the variables it encrypted, until a full rotation
// re-encrypts them. A full rotation answers once every variable is
// re-encrypted.
func (s *Server) RotateRootKey(ctx context.Context, req *RootKeyRotateRequest) (*RootKeyRotateResponse, error) {
	return userWrite(ctx, s, "Keyring.Rotate", req, management, func(ctx context.Context, req *RootKeyRotateRequest) (*RootKeyRotateResponse, error) {
		key, err := structs.NewRootKey(time.Now())
		if err != nil {
			return nil, err
		}
		index, err := s.raftApply(ctx, logentry.MsgRootKeyUpsert, &logentry.RootKeyUpsert{Key: key})
		if err != nil {
			return nil, err
		}
		if req.Full {
			n, err := s.rekeyVariables(ctx, key)
			if err != nil {
				return nil, fmt.Errorf("root key %s is active, but re-encrypting the variables stopped after %d: %w (rotate with -full again)", key.KeyID, n, err)
			}
			s.logger.Info("re-encrypted variables with the new root key", "key_id", key.KeyID, "variables", n)
		}
		return &RootKeyRotateResponse{Key: key.Meta(), Index: index}, nil
	})
}

// DeleteRootKey removes an inactive root key. The active key cannot be
// removed; an unknown key is ErrNotFound. Without Force, a key is kept
// while an allocation that started before it was rotated out still runs:
// that allocation's tasks may hold identities only it verifies.
func (s *Server) DeleteRootKey(ctx context.Context, req *RootKeyDeleteRequest) (*IndexResponse, error) {
	return userWrite(ctx, s, "Keyring.Delete", req, management, s.deleteRootKeyLocal)
}

func (s *Server) deleteRootKeyLocal(ctx context.Context, req *RootKeyDeleteRequest) (*IndexResponse, error) {
	if !structs.ValidRootKeyID(req.KeyID) {
		return nil, invalidf("root key ID %q is not a UUID", req.KeyID)
	}
	if err := s.leaderBarrier(ctx); err != nil {
		return nil, err
	}
	key, err := s.State().RootKeyByID(nil, req.KeyID)
	if err != nil {
		return nil, err
	}
	if key == nil {
		return nil, fmt.Errorf("root key %s: %w", req.KeyID, ErrNotFound)
	}
	if key.Active() {
		return nil, nomadrpc.WithKind(ErrInvalidRequest, fmt.Errorf("root key %s: %w", req.KeyID, state.ErrActiveRootKey))
	}
	// Whatever force says: without its key a variable is lost.
	sealed, err := s.State().VariablesByKeyID(nil, req.KeyID)
	if err != nil {
		return nil, err
	}
	if len(sealed) > 0 {
		return nil, invalidf("root key %s still encrypts %d variables, such as %q in namespace %q: rotate with -full to re-encrypt them with the active key first",
			req.KeyID, len(sealed), sealed[0].Path, sealed[0].Namespace)
	}
	if !req.Force {
		if err := s.checkRootKeyUnused(key); err != nil {
			return nil, err
		}
	}
	index, err := s.raftApply(ctx, logentry.MsgRootKeyDelete, &logentry.RootKeyDelete{KeyID: req.KeyID})
	return &IndexResponse{Index: index}, err
}

// checkRootKeyUnused refuses to remove key while an allocation that was
// created while the key was active still runs. Identities are signed on
// demand, with the active key of the moment, so only those allocations
// may hold one that key signed.
func (s *Server) checkRootKeyUnused(key *structs.RootKey) error {
	allocs, err := s.State().Allocs(nil)
	if err != nil {
		return err
	}
	for _, a := range allocs {
		if !a.ClientTerminalStatus() && a.CreateIndex < key.ModifyIndex {
			return invalidf("root key %s may have signed the identities of allocation %s, which still runs: use force to remove it anyway", key.KeyID, a.ID)
		}
	}
	return nil
}

// keyringRPC serves the keyring writes forwarded by other servers.
type keyringRPC struct{ srv *Server }

// Rotate serves RotateRootKey.
func (e *keyringRPC) Rotate(args *RootKeyRotateRequest, reply *RootKeyRotateResponse) error {
	return e.srv.serveUserRPC(args.AuthToken, func(ctx context.Context) error {
		return fill(reply)(e.srv.RotateRootKey(ctx, args))
	})
}

// Delete serves DeleteRootKey.
func (e *keyringRPC) Delete(args *RootKeyDeleteRequest, reply *IndexResponse) error {
	return e.srv.serveUserRPC(args.AuthToken, func(ctx context.Context) error {
		return fill(reply)(e.srv.DeleteRootKey(ctx, args))
	})
}

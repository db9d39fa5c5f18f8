package nomad

import (
	"errors"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// RootKeyUpsertEntry adds a root key to the keyring. An active key
// becomes the one that signs and every other key turns inactive.
type RootKeyUpsertEntry struct {
	Key *structs.RootKey
	// IfEmpty makes the entry write nothing when the keyring already
	// holds a key: the key a new leader makes for a keyring it found
	// empty.
	IfEmpty bool
}

func (e *RootKeyUpsertEntry) messageType() MessageType { return MsgRootKeyUpsert }

func (e *RootKeyUpsertEntry) validate() error {
	if e.Key == nil {
		return invalidf("root key upsert: no key")
	}
	if err := e.Key.Validate(); err != nil {
		return nomadrpc.WithKind(ErrInvalidRequest, err)
	}
	return nil
}

func (e *RootKeyUpsertEntry) applyTo(s *state.StateStore, index uint64) error {
	return s.UpsertRootKey(index, e.Key, e.IfEmpty)
}

func (e *RootKeyUpsertEntry) evals() []*structs.Evaluation { return nil }

// RootKeyDeleteEntry removes an inactive root key. The store refuses the
// active key where the entry lands.
type RootKeyDeleteEntry struct {
	KeyID string
}

func (e *RootKeyDeleteEntry) messageType() MessageType { return MsgRootKeyDelete }

func (e *RootKeyDeleteEntry) validate() error {
	if !structs.ValidRootKeyID(e.KeyID) {
		return invalidf("root key delete: key ID %q is not a UUID", e.KeyID)
	}
	return nil
}

func (e *RootKeyDeleteEntry) applyTo(s *state.StateStore, index uint64) error {
	err := s.DeleteRootKey(index, e.KeyID)
	if errors.Is(err, state.ErrActiveRootKey) {
		return nomadrpc.WithKind(ErrInvalidRequest, err)
	}
	return err
}

func (e *RootKeyDeleteEntry) evals() []*structs.Evaluation { return nil }

package logentry

import (
	"errors"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// RootKeyUpsert adds a root key to the keyring. An active key
// becomes the one that signs and every other key turns inactive.
type RootKeyUpsert struct {
	Key *structs.RootKey
	// IfEmpty makes the entry write nothing when the keyring already
	// holds a key: the key a new leader makes for a keyring it found
	// empty.
	IfEmpty bool
}

func (e *RootKeyUpsert) MessageType() MessageType { return MsgRootKeyUpsert }

func (e *RootKeyUpsert) Validate() error {
	if e.Key == nil {
		return invalidf("root key upsert: no key")
	}
	if err := e.Key.Validate(); err != nil {
		return nomadrpc.WithKind(nomadrpc.ErrInvalidRequest, err)
	}
	return nil
}

func (e *RootKeyUpsert) ApplyTo(s *state.StateStore, index uint64) error {
	return s.UpsertRootKey(index, e.Key, e.IfEmpty)
}

func (e *RootKeyUpsert) WrittenEvals() []*structs.Evaluation { return nil }

// RootKeyDelete removes an inactive root key. The store refuses the
// active key, and a key that still seals variables, where the entry
// lands.
type RootKeyDelete struct {
	KeyID string
}

func (e *RootKeyDelete) MessageType() MessageType { return MsgRootKeyDelete }

func (e *RootKeyDelete) Validate() error {
	if !structs.ValidRootKeyID(e.KeyID) {
		return invalidf("root key delete: key ID %q is not a UUID", e.KeyID)
	}
	return nil
}

func (e *RootKeyDelete) ApplyTo(s *state.StateStore, index uint64) error {
	err := s.DeleteRootKey(index, e.KeyID)
	if errors.Is(err, state.ErrActiveRootKey) || errors.Is(err, state.ErrRootKeyInUse) {
		return nomadrpc.WithKind(nomadrpc.ErrInvalidRequest, err)
	}
	return err
}

func (e *RootKeyDelete) WrittenEvals() []*structs.Evaluation { return nil }

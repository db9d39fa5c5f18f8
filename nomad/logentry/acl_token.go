package logentry

import (
	"errors"
	"fmt"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// ACLTokenUpsert creates or updates ACL tokens.
type ACLTokenUpsert struct {
	Tokens []*structs.ACLToken
}

func (e *ACLTokenUpsert) MessageType() MessageType { return MsgACLTokenUpsert }

func (e *ACLTokenUpsert) Validate() error {
	if len(e.Tokens) == 0 {
		return invalidf("ACL token upsert: no tokens")
	}
	return validateTokens(e.Tokens)
}

func validateTokens(tokens []*structs.ACLToken) error {
	var errs []error
	for i, t := range tokens {
		if t == nil {
			errs = append(errs, fmt.Errorf("token %d is nil", i))
			continue
		}
		if err := t.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("token %d: %w", i, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nomadrpc.WithKind(nomadrpc.ErrInvalidRequest, err)
	}
	return nil
}

func (e *ACLTokenUpsert) ApplyTo(s *state.StateStore, index uint64) error {
	return s.UpsertACLTokens(index, e.Tokens)
}

func (e *ACLTokenUpsert) WrittenEvals() []*structs.Evaluation { return nil }

// ACLTokenDelete removes ACL tokens by accessor ID.
type ACLTokenDelete struct {
	AccessorIDs []string
}

func (e *ACLTokenDelete) MessageType() MessageType { return MsgACLTokenDelete }

func (e *ACLTokenDelete) Validate() error {
	if len(e.AccessorIDs) == 0 {
		return invalidf("ACL token delete: no accessor IDs")
	}
	return nil
}

func (e *ACLTokenDelete) ApplyTo(s *state.StateStore, index uint64) error {
	return s.DeleteACLTokens(index, e.AccessorIDs)
}

func (e *ACLTokenDelete) WrittenEvals() []*structs.Evaluation { return nil }

// ACLTokenBootstrap stores the first management token of a cluster.
// ResetIndex, when not 0, is the bootstrap index the operator named to
// bootstrap once more.
type ACLTokenBootstrap struct {
	Token      *structs.ACLToken
	ResetIndex uint64 `json:",omitempty"`
}

func (e *ACLTokenBootstrap) MessageType() MessageType { return MsgACLTokenBootstrap }

func (e *ACLTokenBootstrap) Validate() error {
	if e.Token == nil || e.Token.Type != structs.ACLTokenTypeManagement {
		return invalidf("ACL bootstrap: the token must be a management token")
	}
	return validateTokens([]*structs.ACLToken{e.Token})
}

func (e *ACLTokenBootstrap) ApplyTo(s *state.StateStore, index uint64) error {
	err := s.BootstrapACLToken(index, e.ResetIndex, e.Token)
	if errors.Is(err, state.ErrACLBootstrapped) {
		return nomadrpc.WithKind(nomadrpc.ErrInvalidRequest, err)
	}
	return err
}

func (e *ACLTokenBootstrap) WrittenEvals() []*structs.Evaluation { return nil }

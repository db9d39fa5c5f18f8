package nomad

import (
	"errors"
	"fmt"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// ACLTokenUpsertEntry creates or updates ACL tokens.
type ACLTokenUpsertEntry struct {
	Tokens []*structs.ACLToken
}

func (e *ACLTokenUpsertEntry) messageType() MessageType { return MsgACLTokenUpsert }

func (e *ACLTokenUpsertEntry) validate() error {
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
		return nomadrpc.WithKind(ErrInvalidRequest, err)
	}
	return nil
}

func (e *ACLTokenUpsertEntry) applyTo(s *state.StateStore, index uint64) error {
	return s.UpsertACLTokens(index, e.Tokens)
}

func (e *ACLTokenUpsertEntry) evals() []*structs.Evaluation { return nil }

// ACLTokenDeleteEntry removes ACL tokens by accessor ID.
type ACLTokenDeleteEntry struct {
	AccessorIDs []string
}

func (e *ACLTokenDeleteEntry) messageType() MessageType { return MsgACLTokenDelete }

func (e *ACLTokenDeleteEntry) validate() error {
	if len(e.AccessorIDs) == 0 {
		return invalidf("ACL token delete: no accessor IDs")
	}
	return nil
}

func (e *ACLTokenDeleteEntry) applyTo(s *state.StateStore, index uint64) error {
	return s.DeleteACLTokens(index, e.AccessorIDs)
}

func (e *ACLTokenDeleteEntry) evals() []*structs.Evaluation { return nil }

// ACLTokenBootstrapEntry stores the first management token of a cluster.
// ResetIndex, when not 0, is the bootstrap index the operator named to
// bootstrap once more.
type ACLTokenBootstrapEntry struct {
	Token      *structs.ACLToken
	ResetIndex uint64 `json:",omitempty"`
}

func (e *ACLTokenBootstrapEntry) messageType() MessageType { return MsgACLTokenBootstrap }

func (e *ACLTokenBootstrapEntry) validate() error {
	if e.Token == nil || e.Token.Type != structs.ACLTokenTypeManagement {
		return invalidf("ACL bootstrap: the token must be a management token")
	}
	return validateTokens([]*structs.ACLToken{e.Token})
}

func (e *ACLTokenBootstrapEntry) applyTo(s *state.StateStore, index uint64) error {
	err := s.BootstrapACLToken(index, e.ResetIndex, e.Token)
	if errors.Is(err, state.ErrACLBootstrapped) {
		return nomadrpc.WithKind(ErrInvalidRequest, err)
	}
	return err
}

func (e *ACLTokenBootstrapEntry) evals() []*structs.Evaluation { return nil }

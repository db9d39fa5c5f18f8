package logentry

import (
	"errors"
	"fmt"

	"github.com/drover-io/drover/acl"
	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// ACLPolicyUpsert creates or replaces ACL policies.
type ACLPolicyUpsert struct {
	Policies []*structs.ACLPolicy
}

func (e *ACLPolicyUpsert) MessageType() MessageType { return MsgACLPolicyUpsert }

func (e *ACLPolicyUpsert) Validate() error {
	if len(e.Policies) == 0 {
		return invalidf("ACL policy upsert: no policies")
	}
	var errs []error
	for _, p := range e.Policies {
		errs = append(errs, validatePolicy(p))
	}
	if err := errors.Join(errs...); err != nil {
		return nomadrpc.WithKind(nomadrpc.ErrInvalidRequest, err)
	}
	return nil
}

// validatePolicy checks a policy's name and description and that its
// rules parse.
func validatePolicy(p *structs.ACLPolicy) error {
	if p == nil {
		return errors.New("policy is nil")
	}
	if err := p.Validate(); err != nil {
		return err
	}
	if _, err := acl.Parse(p.Rules); err != nil {
		return fmt.Errorf("policy %q: %w", p.Name, err)
	}
	return nil
}

func (e *ACLPolicyUpsert) ApplyTo(s *state.StateStore, index uint64) error {
	return s.UpsertACLPolicies(index, e.Policies)
}

func (e *ACLPolicyUpsert) WrittenEvals() []*structs.Evaluation { return nil }

// ACLPolicyDelete removes ACL policies by name.
type ACLPolicyDelete struct {
	Names []string
}

func (e *ACLPolicyDelete) MessageType() MessageType { return MsgACLPolicyDelete }

func (e *ACLPolicyDelete) Validate() error {
	if len(e.Names) == 0 {
		return invalidf("ACL policy delete: no policy names")
	}
	return nil
}

func (e *ACLPolicyDelete) ApplyTo(s *state.StateStore, index uint64) error {
	return s.DeleteACLPolicies(index, e.Names)
}

func (e *ACLPolicyDelete) WrittenEvals() []*structs.Evaluation { return nil }

package nomad

import (
	"errors"
	"fmt"

	"github.com/drover-io/drover/acl"
	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// ACLPolicyUpsertEntry creates or replaces ACL policies.
type ACLPolicyUpsertEntry struct {
	Policies []*structs.ACLPolicy
}

func (e *ACLPolicyUpsertEntry) messageType() MessageType { return MsgACLPolicyUpsert }

func (e *ACLPolicyUpsertEntry) validate() error {
	if len(e.Policies) == 0 {
		return invalidf("ACL policy upsert: no policies")
	}
	var errs []error
	for _, p := range e.Policies {
		errs = append(errs, validatePolicy(p))
	}
	if err := errors.Join(errs...); err != nil {
		return nomadrpc.WithKind(ErrInvalidRequest, err)
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

func (e *ACLPolicyUpsertEntry) applyTo(s *state.StateStore, index uint64) error {
	return s.UpsertACLPolicies(index, e.Policies)
}

func (e *ACLPolicyUpsertEntry) evals() []*structs.Evaluation { return nil }

// ACLPolicyDeleteEntry removes ACL policies by name.
type ACLPolicyDeleteEntry struct {
	Names []string
}

func (e *ACLPolicyDeleteEntry) messageType() MessageType { return MsgACLPolicyDelete }

func (e *ACLPolicyDeleteEntry) validate() error {
	if len(e.Names) == 0 {
		return invalidf("ACL policy delete: no policy names")
	}
	return nil
}

func (e *ACLPolicyDeleteEntry) applyTo(s *state.StateStore, index uint64) error {
	return s.DeleteACLPolicies(index, e.Names)
}

func (e *ACLPolicyDeleteEntry) evals() []*structs.Evaluation { return nil }

package state

import (
	"errors"
	"fmt"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-io/drover/structs"
)

// UpsertACLPolicies creates or replaces policies, taking ownership of
// them. A replaced policy keeps its CreateIndex.
func (s *StateStore) UpsertACLPolicies(index uint64, policies []*structs.ACLPolicy) error {
	return s.write(func(txn *memdb.Txn) error {
		for _, p := range policies {
			if p == nil || p.Name == "" {
				return errors.New("upsert ACL policy: policy is nil or has no name")
			}
			raw, err := txn.First(TableACLPolicies, indexID, p.Name)
			if err != nil {
				return fmt.Errorf("read ACL policy %q: %w", p.Name, err)
			}
			p.CreateIndex = index
			if raw != nil {
				p.CreateIndex = raw.(*structs.ACLPolicy).CreateIndex
			}
			p.ModifyIndex = index
			if err := txn.Insert(TableACLPolicies, p); err != nil {
				return fmt.Errorf("upsert ACL policy %q: %w", p.Name, err)
			}
		}
		return bumpIndex(txn, index, TableACLPolicies)
	})
}

// DeleteACLPolicies removes policies by name. A name that is not stored is
// an ErrNotFound error, and then nothing is deleted. Tokens that name a
// deleted policy keep the name: it grants nothing until a policy of that
// name exists again.
func (s *StateStore) DeleteACLPolicies(index uint64, names []string) error {
	return s.write(func(txn *memdb.Txn) error {
		for _, name := range names {
			n, err := txn.DeleteAll(TableACLPolicies, indexID, name)
			if err != nil {
				return fmt.Errorf("delete ACL policy %q: %w", name, err)
			}
			if n == 0 {
				return fmt.Errorf("delete ACL policy %q: %w", name, ErrNotFound)
			}
		}
		return bumpIndex(txn, index, TableACLPolicies)
	})
}

// ACLPolicyByName returns the policy, or nil if there is none.
func (r *reader) ACLPolicyByName(ws memdb.WatchSet, name string) (*structs.ACLPolicy, error) {
	raw, err := r.first(ws, TableACLPolicies, indexID, name)
	if err != nil || raw == nil {
		return nil, wrapRead(err, "ACL policy %q", name)
	}
	return raw.(*structs.ACLPolicy), nil
}

// ACLPoliciesByNamePrefix returns the policies whose name starts with
// prefix, sorted by name.
func (r *reader) ACLPoliciesByNamePrefix(ws memdb.WatchSet, prefix string) ([]*structs.ACLPolicy, error) {
	policies, err := list[*structs.ACLPolicy](r, ws, TableACLPolicies, indexID+"_prefix", prefix)
	return policies, wrapRead(err, "ACL policies with prefix %q", prefix)
}

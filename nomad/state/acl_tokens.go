package state

import (
	"errors"
	"fmt"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-io/drover/structs"
)

// bootstrapKey is the row of the index table that records the raft index
// of the ACL bootstrap; there is none until the cluster is bootstrapped.
const bootstrapKey = "acl_token_bootstrap"

// ErrACLBootstrapped is wrapped by a bootstrap of a cluster that has been
// bootstrapped already, unless it names the reset index.
var ErrACLBootstrapped = errors.New("ACL bootstrap already done")

// UpsertACLTokens creates or replaces tokens, taking ownership of them. A
// replaced token keeps its CreateIndex, and its secret: a token's SecretID
// never changes.
func (s *StateStore) UpsertACLTokens(index uint64, tokens []*structs.ACLToken) error {
	return s.write(func(txn *memdb.Txn) error {
		for _, t := range tokens {
			if err := upsertToken(txn, index, t); err != nil {
				return err
			}
		}
		return bumpIndex(txn, index, TableACLTokens)
	})
}

func upsertToken(txn *memdb.Txn, index uint64, t *structs.ACLToken) error {
	if t == nil || t.AccessorID == "" || t.SecretID == "" {
		return errors.New("upsert ACL token: token is nil or has no accessor or secret ID")
	}
	raw, err := txn.First(TableACLTokens, indexID, t.AccessorID)
	if err != nil {
		return fmt.Errorf("read ACL token %s: %w", t.AccessorID, err)
	}
	holder, err := txn.First(TableACLTokens, indexSecret, t.SecretID)
	if err != nil {
		return fmt.Errorf("read ACL token by secret: %w", err)
	}
	if holder != nil && holder.(*structs.ACLToken).AccessorID != t.AccessorID {
		return fmt.Errorf("upsert ACL token %s: its secret ID is another token's", t.AccessorID)
	}
	t.CreateIndex = index
	if raw != nil {
		existing := raw.(*structs.ACLToken)
		if existing.SecretID != t.SecretID {
			return fmt.Errorf("upsert ACL token %s: a token's secret ID cannot change", t.AccessorID)
		}
		t.CreateIndex = existing.CreateIndex
	}
	t.ModifyIndex = index
	if err := txn.Insert(TableACLTokens, t); err != nil {
		return fmt.Errorf("upsert ACL token %s: %w", t.AccessorID, err)
	}
	return nil
}

// DeleteACLTokens removes tokens by accessor ID. An ID that is not stored
// is an ErrNotFound error, and then nothing is deleted.
func (s *StateStore) DeleteACLTokens(index uint64, accessorIDs []string) error {
	return s.write(func(txn *memdb.Txn) error {
		for _, id := range accessorIDs {
			n, err := txn.DeleteAll(TableACLTokens, indexID, id)
			if err != nil {
				return fmt.Errorf("delete ACL token %s: %w", id, err)
			}
			if n == 0 {
				return fmt.Errorf("delete ACL token %s: %w", id, ErrNotFound)
			}
		}
		return bumpIndex(txn, index, TableACLTokens)
	})
}

// BootstrapACLToken stores the first management token and records index as
// the bootstrap index. Once bootstrapped, it fails with ErrACLBootstrapped
// unless resetIndex is the recorded bootstrap index: the operator's way to
// bootstrap again after losing every management token.
func (s *StateStore) BootstrapACLToken(index, resetIndex uint64, token *structs.ACLToken) error {
	return s.write(func(txn *memdb.Txn) error {
		raw, err := txn.First(TableIndex, indexID, bootstrapKey)
		if err != nil {
			return fmt.Errorf("read ACL bootstrap index: %w", err)
		}
		if raw != nil {
			done := raw.(*indexEntry).Value
			if resetIndex != done {
				return fmt.Errorf("%w (reset index: %d)", ErrACLBootstrapped, done)
			}
		}
		if err := upsertToken(txn, index, token); err != nil {
			return err
		}
		if err := txn.Insert(TableIndex, &indexEntry{Key: bootstrapKey, Value: index}); err != nil {
			return fmt.Errorf("record ACL bootstrap index: %w", err)
		}
		return bumpIndex(txn, index, TableACLTokens)
	})
}

// ACLBootstrapIndex returns the raft index of the ACL bootstrap, and
// whether the cluster has been bootstrapped.
func (r *reader) ACLBootstrapIndex() (uint64, bool, error) {
	raw, err := r.txn().First(TableIndex, indexID, bootstrapKey)
	if err != nil {
		return 0, false, fmt.Errorf("read ACL bootstrap index: %w", err)
	}
	if raw == nil {
		return 0, false, nil
	}
	return raw.(*indexEntry).Value, true, nil
}

// ACLTokenByAccessorID returns the token, or nil if there is none.
func (r *reader) ACLTokenByAccessorID(ws memdb.WatchSet, id string) (*structs.ACLToken, error) {
	raw, err := r.first(ws, TableACLTokens, indexID, id)
	if err != nil || raw == nil {
		return nil, wrapRead(err, "ACL token %s", id)
	}
	return raw.(*structs.ACLToken), nil
}

// ACLTokenBySecretID returns the token with that secret, or nil if there
// is none. Errors never carry the secret.
func (r *reader) ACLTokenBySecretID(ws memdb.WatchSet, secret string) (*structs.ACLToken, error) {
	raw, err := r.first(ws, TableACLTokens, indexSecret, secret)
	if err != nil || raw == nil {
		return nil, wrapRead(err, "ACL token by secret")
	}
	return raw.(*structs.ACLToken), nil
}

// ACLTokensByAccessorPrefix returns the tokens whose accessor ID starts
// with prefix, sorted by accessor ID.
func (r *reader) ACLTokensByAccessorPrefix(ws memdb.WatchSet, prefix string) ([]*structs.ACLToken, error) {
	tokens, err := list[*structs.ACLToken](r, ws, TableACLTokens, indexID+"_prefix", prefix)
	return tokens, wrapRead(err, "ACL tokens with prefix %q", prefix)
}

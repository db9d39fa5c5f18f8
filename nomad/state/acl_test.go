package state

import (
	"errors"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

func TestACLPolicies_upsertKeepsCreateIndex(t *testing.T) {
	s := newStore(t)
	must.NoError(t, s.UpsertACLPolicies(5, []*structs.ACLPolicy{{Name: "ops", Rules: "a"}}))
	must.NoError(t, s.UpsertACLPolicies(7, []*structs.ACLPolicy{{Name: "ops", Rules: "b"}}))
	p, err := s.ACLPolicyByName(nil, "ops")
	must.NoError(t, err)
	must.Eq(t, "b", p.Rules)
	must.Eq(t, 5, p.CreateIndex)
	must.Eq(t, 7, p.ModifyIndex)
	index, err := s.Index(TableACLPolicies)
	must.NoError(t, err)
	must.Eq(t, 7, index)
}

func TestACLPolicies_deleteUnknownDeletesNothing(t *testing.T) {
	s := newStore(t)
	must.NoError(t, s.UpsertACLPolicies(5, []*structs.ACLPolicy{{Name: "a"}, {Name: "b"}}))
	err := s.DeleteACLPolicies(6, []string{"a", "missing"})
	must.ErrorIs(t, err, ErrNotFound)
	all, err := s.ACLPoliciesByNamePrefix(nil, "")
	must.NoError(t, err)
	must.Len(t, 2, all)

	must.NoError(t, s.DeleteACLPolicies(7, []string{"a"}))
	p, err := s.ACLPolicyByName(nil, "a")
	must.NoError(t, err)
	must.Nil(t, p)
}

func TestACLTokens_lookupsAndSecretNeverChanges(t *testing.T) {
	s := newStore(t)
	tok := testToken(structs.ACLTokenTypeClient)
	must.NoError(t, s.UpsertACLTokens(5, []*structs.ACLToken{tok}))

	bySecret, err := s.ACLTokenBySecretID(nil, tok.SecretID)
	must.NoError(t, err)
	must.Eq(t, tok.AccessorID, bySecret.AccessorID)
	none, err := s.ACLTokenBySecretID(nil, "nope")
	must.NoError(t, err)
	must.Nil(t, none)

	renamed := *tok
	renamed.Name = "renamed"
	must.NoError(t, s.UpsertACLTokens(6, []*structs.ACLToken{&renamed}))
	got, err := s.ACLTokenByAccessorID(nil, tok.AccessorID)
	must.NoError(t, err)
	must.Eq(t, "renamed", got.Name)
	must.Eq(t, 5, got.CreateIndex)

	stolen := renamed
	stolen.SecretID = testID()
	must.ErrorContains(t, s.UpsertACLTokens(7, []*structs.ACLToken{&stolen}), "secret ID cannot change")

	must.ErrorIs(t, s.DeleteACLTokens(8, []string{"missing"}), ErrNotFound)
	must.NoError(t, s.DeleteACLTokens(9, []string{tok.AccessorID}))
	gone, err := s.ACLTokenBySecretID(nil, tok.SecretID)
	must.NoError(t, err)
	must.Nil(t, gone)
}

func TestBootstrapACLToken_onceUnlessReset(t *testing.T) {
	s := newStore(t)
	_, done, err := s.ACLBootstrapIndex()
	must.NoError(t, err)
	must.False(t, done)

	must.NoError(t, s.BootstrapACLToken(10, 0, testToken(structs.ACLTokenTypeManagement)))
	index, done, err := s.ACLBootstrapIndex()
	must.NoError(t, err)
	must.True(t, done)
	must.Eq(t, 10, index)

	second := testToken(structs.ACLTokenTypeManagement)
	err = s.BootstrapACLToken(11, 0, second)
	must.ErrorIs(t, err, ErrACLBootstrapped)
	must.ErrorContains(t, err, "reset index: 10")
	must.ErrorIs(t, s.BootstrapACLToken(11, 9, second), ErrACLBootstrapped)
	none, err := s.ACLTokenByAccessorID(nil, second.AccessorID)
	must.NoError(t, err)
	must.Nil(t, none)

	// The reset index lets the operator in once more, and moves on.
	must.NoError(t, s.BootstrapACLToken(12, 10, second))
	index, _, err = s.ACLBootstrapIndex()
	must.NoError(t, err)
	must.Eq(t, 12, index)
	must.ErrorIs(t, s.BootstrapACLToken(13, 10, testToken(structs.ACLTokenTypeManagement)), ErrACLBootstrapped)
}

func TestNamespaces_defaultAlwaysThere(t *testing.T) {
	s := newStore(t)
	ns, err := s.NamespaceByName(nil, structs.DefaultNamespace)
	must.NoError(t, err)
	must.NotNil(t, ns)
	must.ErrorContains(t, s.DeleteNamespaces(5, []string{structs.DefaultNamespace}), "cannot be deleted")

	// It can be described differently, and keeps its create index.
	must.NoError(t, s.UpsertNamespaces(6, []*structs.Namespace{{Name: "default", Description: "ours"}}))
	ns, err = s.NamespaceByName(nil, structs.DefaultNamespace)
	must.NoError(t, err)
	must.Eq(t, "ours", ns.Description)
	must.Eq(t, 1, ns.CreateIndex)
}

func TestUpsertJob_refusesUnknownNamespace(t *testing.T) {
	s := newStore(t)
	job := testJob("web")
	job.Namespace = "nowhere"
	err := s.UpsertJob(5, job)
	must.ErrorIs(t, err, ErrNoNamespace)
	must.ErrorContains(t, err, `namespace "nowhere"`)
	got, err := s.JobByID(nil, "nowhere", "web")
	must.NoError(t, err)
	must.Nil(t, got)
}

func TestDeleteNamespaces_refusedWhileJobsRemain(t *testing.T) {
	s := newStore(t)
	must.NoError(t, s.UpsertNamespaces(5, []*structs.Namespace{{Name: "team"}, {Name: "empty"}}))
	job := testJob("web")
	job.Namespace = "team"
	mustUpsertJob(t, s, 6, job)

	err := s.DeleteNamespaces(7, []string{"empty", "team"})
	must.ErrorIs(t, err, ErrNamespaceInUse)
	must.ErrorContains(t, err, `"web"`)
	empty, err := s.NamespaceByName(nil, "empty")
	must.NoError(t, err)
	must.NotNil(t, empty) // nothing was deleted

	must.NoError(t, s.DeleteJob(8, "team", "web"))
	must.NoError(t, s.DeleteNamespaces(9, []string{"empty", "team"}))
	all, err := s.NamespacesByNamePrefix(nil, "")
	must.NoError(t, err)
	must.Len(t, 1, all)
	must.True(t, errors.Is(s.DeleteNamespaces(10, []string{"team"}), ErrNotFound))
}

func TestACLTokens_secretIsUnique(t *testing.T) {
	s := newStore(t)
	first := testToken(structs.ACLTokenTypeClient)
	must.NoError(t, s.UpsertACLTokens(5, []*structs.ACLToken{first}))
	copycat := testToken(structs.ACLTokenTypeClient)
	copycat.SecretID = first.SecretID
	must.ErrorContains(t, s.UpsertACLTokens(6, []*structs.ACLToken{copycat}), "another token's")
	got, err := s.ACLTokenBySecretID(nil, first.SecretID)
	must.NoError(t, err)
	must.Eq(t, first.AccessorID, got.AccessorID)
}

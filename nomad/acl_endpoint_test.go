package nomad

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

func TestBootstrapACL_once(t *testing.T) {
	s, token := aclServer(t)
	must.Eq(t, structs.ACLTokenTypeManagement, token.Type)
	must.NotEq(t, "", token.SecretID)
	must.NotEq(t, token.SecretID, token.AccessorID)
	must.Positive(t, token.CreateIndex)

	_, err := s.BootstrapACL(testCtx(t), &ACLBootstrapRequest{})
	must.ErrorIs(t, err, ErrInvalidRequest)
	must.ErrorContains(t, err, "ACL bootstrap already done (reset index: "+strconv.FormatUint(token.CreateIndex, 10)+")")
	tokens, err := s.State().ACLTokensByAccessorPrefix(nil, "")
	must.NoError(t, err)
	must.Len(t, 1, tokens)
}

func TestBootstrapACL_chosenSecret(t *testing.T) {
	s := startServer(t, aclConfig(t, "acl"))
	waitForLeader(t, s)
	_, err := s.BootstrapACL(testCtx(t), &ACLBootstrapRequest{BootstrapSecret: "not-a-uuid"})
	must.ErrorIs(t, err, ErrInvalidRequest)
	// Nomad's wording, which its API client's tests match exactly.
	must.EqError(t, err, "invalid acl token")

	secret := structs.GenerateUUID()
	resp, err := s.BootstrapACL(testCtx(t), &ACLBootstrapRequest{BootstrapSecret: secret})
	must.NoError(t, err)
	must.Eq(t, secret, resp.Token.SecretID)
	a, _, err := s.ResolveToken(testCtx(t), secret)
	must.NoError(t, err)
	must.True(t, a.IsManagement())
}

func TestBootstrapACL_resetFile(t *testing.T) {
	cfg := aclConfig(t, "acl")
	cfg.DataDir = t.TempDir()
	cfg.DevMode = false
	s := startServer(t, cfg)
	waitForLeader(t, s)
	first, err := s.BootstrapACL(testCtx(t), &ACLBootstrapRequest{})
	must.NoError(t, err)

	resetPath := filepath.Join(cfg.DataDir, "server", BootstrapResetFile)
	must.NoError(t, os.WriteFile(resetPath, []byte("999999\n"), 0o600))
	_, err = s.BootstrapACL(testCtx(t), &ACLBootstrapRequest{})
	must.ErrorContains(t, err, "already done")

	must.NoError(t, os.WriteFile(resetPath, []byte(strconv.FormatUint(first.Index, 10)+"\n"), 0o600))
	second, err := s.BootstrapACL(testCtx(t), &ACLBootstrapRequest{})
	must.NoError(t, err)
	must.NotEq(t, first.Token.SecretID, second.Token.SecretID)
	// The old index no longer opens the door.
	_, err = s.BootstrapACL(testCtx(t), &ACLBootstrapRequest{})
	must.ErrorContains(t, err, "already done")
}

func TestBootstrapACL_disabled(t *testing.T) {
	s := startServer(t, unscheduledConfig(t, "no-acl"))
	waitForLeader(t, s)
	_, err := s.BootstrapACL(testCtx(t), &ACLBootstrapRequest{})
	must.ErrorContains(t, err, "ACL support disabled")
	a, token, err := s.ResolveToken(testCtx(t), "anything")
	must.NoError(t, err)
	must.True(t, a.IsManagement())
	must.Nil(t, token)
}

func TestResolveToken(t *testing.T) {
	s, mgmt := aclServer(t)
	ctx := testCtx(t)

	a, token, err := s.ResolveToken(testCtx(t), mgmt.SecretID)
	must.NoError(t, err)
	must.True(t, a.IsManagement())
	must.Eq(t, mgmt.AccessorID, token.AccessorID)

	_, _, err = s.ResolveToken(testCtx(t), structs.GenerateUUID())
	must.ErrorIs(t, err, ErrTokenNotFound)

	// The anonymous caller gets nothing until the anonymous policy exists.
	anon, token, err := s.ResolveToken(testCtx(t), "")
	must.NoError(t, err)
	must.Nil(t, token)
	must.False(t, anon.AllowNamespaceOperation("default", acl.CapListJobs))
	_, err = s.UpsertACLPolicies(ctx, &ACLPolicyUpsertRequest{Policies: []*structs.ACLPolicy{{
		Name: structs.AnonymousPolicyName, Rules: `namespace "default" { policy = "read" }`,
	}}})
	must.NoError(t, err)
	anon, _, err = s.ResolveToken(testCtx(t), "")
	must.NoError(t, err)
	must.True(t, anon.AllowNamespaceOperation("default", acl.CapListJobs))
	must.False(t, anon.AllowNamespaceOperation("default", acl.CapSubmitJob))

	// A client token has its policies, and sees them change.
	dev := clientToken(t, s, "dev", `namespace "default" { policy = "read" }`)
	a, _, err = s.ResolveToken(testCtx(t), dev.SecretID)
	must.NoError(t, err)
	must.False(t, a.AllowNamespaceOperation("default", acl.CapSubmitJob))
	_, err = s.UpsertACLPolicies(ctx, &ACLPolicyUpsertRequest{Policies: []*structs.ACLPolicy{{
		Name: "dev", Rules: `namespace "default" { policy = "write" }`,
	}}})
	must.NoError(t, err)
	a, _, err = s.ResolveToken(testCtx(t), dev.SecretID)
	must.NoError(t, err)
	must.True(t, a.AllowNamespaceOperation("default", acl.CapSubmitJob))

	// Deleting the policy takes the rights away; the token stays.
	_, err = s.DeleteACLPolicies(ctx, &ACLPolicyDeleteRequest{Names: []string{"dev"}})
	must.NoError(t, err)
	a, token, err = s.ResolveToken(testCtx(t), dev.SecretID)
	must.NoError(t, err)
	must.NotNil(t, token)
	must.False(t, a.AllowNamespaceOperation("default", acl.CapReadJob))
}

func TestResolveToken_expired(t *testing.T) {
	s, _ := aclServer(t)
	clientToken(t, s, "dev", `node { policy = "read" }`)
	resp, err := s.UpsertACLTokens(testCtx(t), &ACLTokenUpsertRequest{Tokens: []*structs.ACLToken{{
		Policies: []string{"dev"}, ExpirationTTL: time.Second,
	}}})
	must.NoError(t, err)
	tok := resp.Tokens[0]
	must.NotNil(t, tok.ExpirationTime)
	must.Eq(t, tok.CreateTime.Add(time.Second), *tok.ExpirationTime)

	must.NoError(t, usableToken(tok, tok.CreateTime))
	err = usableToken(tok, tok.ExpirationTime.Add(time.Millisecond))
	must.ErrorIs(t, err, ErrTokenExpired)
	must.StrNotContains(t, err.Error(), tok.SecretID)
}

func TestUpsertACLTokens_rules(t *testing.T) {
	s, _ := aclServer(t)
	ctx := testCtx(t)
	dev := clientToken(t, s, "dev", `node { policy = "read" }`)
	upsert := func(tok *structs.ACLToken) (*structs.ACLToken, error) {
		resp, err := s.UpsertACLTokens(ctx, &ACLTokenUpsertRequest{Tokens: []*structs.ACLToken{tok}})
		if err != nil {
			return nil, err
		}
		return resp.Tokens[0], nil
	}

	_, err := upsert(&structs.ACLToken{Policies: []string{"missing"}})
	must.ErrorIs(t, err, ErrInvalidRequest)
	must.ErrorContains(t, err, `policy "missing" does not exist`)
	_, err = upsert(&structs.ACLToken{})
	must.ErrorContains(t, err, "client token has no policies")

	// An update keeps the secret and the create time, renames, re-policies.
	clientToken(t, s, "ops", `agent { policy = "read" }`)
	updated, err := upsert(&structs.ACLToken{AccessorID: dev.AccessorID, Name: "renamed", Policies: []string{"ops"}})
	must.NoError(t, err)
	must.Eq(t, dev.SecretID, updated.SecretID)
	must.Eq(t, dev.CreateIndex, updated.CreateIndex)
	must.Eq(t, "renamed", updated.Name)
	_, err = upsert(&structs.ACLToken{AccessorID: dev.AccessorID, Type: structs.ACLTokenTypeManagement})
	must.ErrorContains(t, err, "the type cannot change")
	_, err = upsert(&structs.ACLToken{AccessorID: dev.AccessorID, SecretID: structs.GenerateUUID(), Policies: []string{"ops"}})
	must.ErrorContains(t, err, "the secret ID cannot change")

	// A token from elsewhere can be created with its IDs; not a management one.
	accessor, secret := structs.GenerateUUID(), structs.GenerateUUID()
	uploaded, err := upsert(&structs.ACLToken{AccessorID: accessor, SecretID: secret, Policies: []string{"ops"}})
	must.NoError(t, err)
	must.Eq(t, secret, uploaded.SecretID)
	_, err = upsert(&structs.ACLToken{AccessorID: structs.GenerateUUID(), SecretID: secret, Policies: []string{"ops"}})
	must.ErrorContains(t, err, "in use")
	_, err = upsert(&structs.ACLToken{AccessorID: structs.GenerateUUID(), SecretID: structs.GenerateUUID(), Type: structs.ACLTokenTypeManagement})
	must.ErrorContains(t, err, "management token cannot be created with chosen IDs")

	_, err = upsert(&structs.ACLToken{Policies: []string{"ops"}, ExpirationTTL: -time.Second})
	must.ErrorContains(t, err, "negative")
}

func TestUpsertACLPolicies_badRulesChangeNothing(t *testing.T) {
	s, _ := aclServer(t)
	// The new leader writes its first root key in the background; let that
	// land so the index below moves only for this test's writes.
	waitfor.True(t, "the first root key", func() bool {
		keys, err := s.State().RootKeys(nil)
		return err == nil && len(keys) > 0
	})
	before, err := s.State().LatestIndex()
	must.NoError(t, err)
	_, err = s.UpsertACLPolicies(testCtx(t), &ACLPolicyUpsertRequest{Policies: []*structs.ACLPolicy{
		{Name: "good", Rules: `node { policy = "read" }`},
		{Name: "bad", Rules: `namespace "x" { policy = "root" }`},
	}})
	must.ErrorIs(t, err, ErrInvalidRequest)
	must.ErrorContains(t, err, `policy "bad"`)
	after, err := s.State().LatestIndex()
	must.NoError(t, err)
	must.Eq(t, before, after)
	good, err := s.State().ACLPolicyByName(nil, "good")
	must.NoError(t, err)
	must.Nil(t, good)

	_, err = s.DeleteACLPolicies(testCtx(t), &ACLPolicyDeleteRequest{Names: []string{"nope"}})
	must.True(t, errors.Is(err, ErrNotFound))
}

func TestACLReads_filterByCaller(t *testing.T) {
	s, mgmt := aclServer(t)
	ctx := testCtx(t)
	dev := clientToken(t, s, "dev", `namespace "default" { policy = "read" }`)
	clientToken(t, s, "ops", `node { policy = "read" }`)

	all, _, err := s.ListACLPolicies(ctx, QueryOptions{ACL: acl.Management(), Token: mgmt})
	must.NoError(t, err)
	must.Len(t, 2, all)
	devACL, _, err := s.ResolveToken(testCtx(t), dev.SecretID)
	must.NoError(t, err)
	mine, _, err := s.ListACLPolicies(ctx, QueryOptions{ACL: devACL, Token: dev})
	must.NoError(t, err)
	must.Len(t, 1, mine)
	must.Eq(t, "dev", mine[0].Name)

	tokens, _, err := s.ListACLTokens(ctx, QueryOptions{ACL: devACL, Token: dev})
	must.NoError(t, err)
	must.Len(t, 0, tokens)
	tokens, _, err = s.ListACLTokens(ctx, QueryOptions{ACL: acl.Management()})
	must.NoError(t, err)
	must.Len(t, 3, tokens)
}

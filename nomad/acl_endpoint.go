package nomad

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/drover-io/drover/nomad/logentry"
	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// BootstrapResetFile is the file, in the server's directory under the data
// dir, where an operator who has lost every management token writes the
// reset index a failed bootstrap reported, to bootstrap once more.
const BootstrapResetFile = "acl-bootstrap-reset"

// validSecret is the shape of a secret ID an operator may choose: a UUID.
// It is compiled on first use, not by every process of the binary at
// start-up.
var validSecret = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
})

// ACLBootstrapRequest bootstraps the ACL system. BootstrapSecret, when
// set, is the secret ID the management token gets.
type ACLBootstrapRequest struct {
	WriteDeadline
	BootstrapSecret string `json:",omitempty"`
}

// ACLTokenResponse is one token and the index it was written at.
type ACLTokenResponse struct {
	Token *structs.ACLToken
	Index uint64
}

// ACLPolicyUpsertRequest creates or replaces policies.
type ACLPolicyUpsertRequest struct {
	AuthRequest
	WriteDeadline
	Policies []*structs.ACLPolicy
}

// ACLPolicyDeleteRequest removes policies.
type ACLPolicyDeleteRequest struct {
	AuthRequest
	WriteDeadline
	Names []string
}

// ACLTokenUpsertRequest creates tokens (no AccessorID, or one that no
// token has together with the SecretID to use) or updates them (the
// AccessorID of a stored token).
type ACLTokenUpsertRequest struct {
	AuthRequest
	WriteDeadline
	Tokens []*structs.ACLToken
}

// ACLTokenUpsertResponse is the tokens as stored, secrets included.
type ACLTokenUpsertResponse struct {
	Tokens []*structs.ACLToken
	Index  uint64
}

// ACLTokenDeleteRequest removes tokens.
type ACLTokenDeleteRequest struct {
	AuthRequest
	WriteDeadline
	AccessorIDs []string
}

// BootstrapACL creates the cluster's first management token. It works
// once; afterwards it fails, naming the reset index, until an operator
// writes that index to BootstrapResetFile on the leader.
func (s *Server) BootstrapACL(ctx context.Context, req *ACLBootstrapRequest) (*ACLTokenResponse, error) {
	return leaderWrite(ctx, s, "ACL.Bootstrap", req, s.bootstrapACLLocal)
}

// requireACL refuses ACL writes on a server without ACLs.
func (s *Server) requireACL() error {
	if !s.config.ACLEnabled {
		return invalidf("ACL support disabled: set acl { enabled = true } on every agent")
	}
	return nil
}

func (s *Server) bootstrapACLLocal(ctx context.Context, req *ACLBootstrapRequest) (*ACLTokenResponse, error) {
	if err := s.requireACL(); err != nil {
		return nil, err
	}
	secret := req.BootstrapSecret
	if secret != "" && !validSecret().MatchString(secret) {
		// Nomad's wording, which its clients match: the secret of the
		// token to create is invalid (it must be a UUID).
		return nil, invalidf("invalid acl token")
	}
	if err := s.leaderBarrier(ctx); err != nil {
		return nil, err
	}
	resetIndex, err := s.bootstrapResetIndex()
	if err != nil {
		return nil, err
	}
	if secret == "" {
		secret = structs.GenerateUUID()
	}
	token := &structs.ACLToken{
		AccessorID: structs.GenerateUUID(),
		SecretID:   secret,
		Name:       "Bootstrap Token",
		Type:       structs.ACLTokenTypeManagement,
		Global:     true,
		CreateTime: time.Now().UTC(),
	}
	index, err := s.raftApply(ctx, logentry.MsgACLTokenBootstrap, &logentry.ACLTokenBootstrap{Token: token, ResetIndex: resetIndex})
	if err != nil {
		return nil, err
	}
	s.logger.Info("ACL system bootstrapped", "accessor_id", token.AccessorID, "index", index)
	stored, err := s.State().ACLTokenByAccessorID(nil, token.AccessorID)
	if err != nil {
		return nil, err
	}
	return &ACLTokenResponse{Token: stored, Index: index}, nil
}

// bootstrapResetIndex is the index the operator wrote to the reset file
// when the cluster has been bootstrapped already, 0 otherwise; the store
// refuses a bootstrap whose reset index is not the bootstrap index.
func (s *Server) bootstrapResetIndex() (uint64, error) {
	if _, done, err := s.State().ACLBootstrapIndex(); err != nil || !done {
		return 0, err
	}
	if s.config.inMemory() {
		return 0, nil
	}
	path := filepath.Join(s.config.serverDir(), BootstrapResetFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read ACL bootstrap reset file: %w", err)
	}
	index, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64)
	if err != nil {
		return 0, invalidf("ACL bootstrap reset file %s holds %q, not a reset index", path, strings.TrimSpace(string(data)))
	}
	return index, nil
}

// UpsertACLPolicies creates or replaces policies, whose rules must parse.
func (s *Server) UpsertACLPolicies(ctx context.Context, req *ACLPolicyUpsertRequest) (*IndexResponse, error) {
	return userWrite(ctx, s, "ACL.UpsertPolicies", req, management, func(ctx context.Context, req *ACLPolicyUpsertRequest) (*IndexResponse, error) {
		if err := s.requireACL(); err != nil {
			return nil, err
		}
		index, err := s.raftApply(ctx, logentry.MsgACLPolicyUpsert, &logentry.ACLPolicyUpsert{Policies: req.Policies})
		return &IndexResponse{Index: index}, err
	})
}

// DeleteACLPolicies removes policies; an unknown name is ErrNotFound.
func (s *Server) DeleteACLPolicies(ctx context.Context, req *ACLPolicyDeleteRequest) (*IndexResponse, error) {
	return userWrite(ctx, s, "ACL.DeletePolicies", req, management, func(ctx context.Context, req *ACLPolicyDeleteRequest) (*IndexResponse, error) {
		if err := s.requireACL(); err != nil {
			return nil, err
		}
		index, err := s.raftApply(ctx, logentry.MsgACLPolicyDelete, &logentry.ACLPolicyDelete{Names: req.Names})
		return &IndexResponse{Index: index}, err
	})
}

// UpsertACLTokens creates or updates tokens and returns them as stored.
func (s *Server) UpsertACLTokens(ctx context.Context, req *ACLTokenUpsertRequest) (*ACLTokenUpsertResponse, error) {
	return userWrite(ctx, s, "ACL.UpsertTokens", req, management, s.upsertACLTokensLocal)
}

func (s *Server) upsertACLTokensLocal(ctx context.Context, req *ACLTokenUpsertRequest) (*ACLTokenUpsertResponse, error) {
	if err := s.requireACL(); err != nil {
		return nil, err
	}
	if len(req.Tokens) == 0 {
		return nil, invalidf("ACL token upsert: no tokens")
	}
	if err := s.leaderBarrier(ctx); err != nil {
		return nil, err
	}
	st := s.State()
	now := time.Now().UTC()
	tokens := make([]*structs.ACLToken, 0, len(req.Tokens))
	for i, in := range req.Tokens {
		t, err := prepareToken(st, in, now)
		if err != nil {
			return nil, fmt.Errorf("token %d: %w", i, err)
		}
		tokens = append(tokens, t)
	}
	index, err := s.raftApply(ctx, logentry.MsgACLTokenUpsert, &logentry.ACLTokenUpsert{Tokens: tokens})
	if err != nil {
		return nil, err
	}
	resp := &ACLTokenUpsertResponse{Index: index}
	for _, t := range tokens {
		stored, err := s.State().ACLTokenByAccessorID(nil, t.AccessorID)
		if err != nil {
			return nil, err
		}
		resp.Tokens = append(resp.Tokens, stored)
	}
	return resp, nil
}

// prepareToken turns a requested token into the one to store: a new one
// gets its IDs, create time and expiration; an update keeps what a token
// never changes (its secret, type, create time and expiration).
func prepareToken(st *state.StateStore, in *structs.ACLToken, now time.Time) (*structs.ACLToken, error) {
	if in == nil {
		return nil, invalidf("no token")
	}
	t := &structs.ACLToken{
		AccessorID: in.AccessorID,
		SecretID:   in.SecretID,
		Name:       in.Name,
		Type:       in.Type,
		Policies:   in.Policies,
		Global:     in.Global,
	}
	if t.Type == "" {
		t.Type = structs.ACLTokenTypeClient
	}
	var existing *structs.ACLToken
	if in.AccessorID != "" {
		var err error
		if existing, err = st.ACLTokenByAccessorID(nil, in.AccessorID); err != nil {
			return nil, err
		}
	}
	var err error
	if existing != nil {
		err = keepImmutable(t, in, existing)
	} else {
		err = newTokenFields(st, t, in, now)
	}
	if err != nil {
		return nil, err
	}
	for _, name := range t.Policies {
		p, err := st.ACLPolicyByName(nil, name)
		if err != nil {
			return nil, err
		}
		if p == nil {
			return nil, invalidf("policy %q does not exist", name)
		}
	}
	if err := t.Validate(); err != nil {
		return nil, nomadrpc.WithKind(ErrInvalidRequest, err)
	}
	return t, nil
}

// keepImmutable carries over what an update cannot change, refusing a
// request that tries.
func keepImmutable(t, in, existing *structs.ACLToken) error {
	switch {
	case in.SecretID != "" && in.SecretID != existing.SecretID:
		return invalidf("token %s: the secret ID cannot change", existing.AccessorID)
	case in.Type != "" && in.Type != existing.Type:
		return invalidf("token %s: the type cannot change from %s to %s", existing.AccessorID, existing.Type, in.Type)
	case in.ExpirationTTL != 0 || (in.ExpirationTime != nil && !sameTime(in.ExpirationTime, existing.ExpirationTime)):
		return invalidf("token %s: the expiration cannot change", existing.AccessorID)
	}
	t.SecretID = existing.SecretID
	t.Type = existing.Type
	t.CreateTime = existing.CreateTime
	t.ExpirationTime = existing.ExpirationTime
	t.ExpirationTTL = existing.ExpirationTTL
	return nil
}

func sameTime(a, b *time.Time) bool {
	return b != nil && a.Equal(*b)
}

// newTokenFields gives a new token its IDs, create time and expiration.
// An accessor ID the caller chose comes with the secret ID to use (an
// upload of a token from elsewhere); only client tokens are uploaded.
func newTokenFields(st *state.StateStore, t, in *structs.ACLToken, now time.Time) error {
	if in.AccessorID != "" {
		switch {
		case !validSecret().MatchString(in.AccessorID) || !validSecret().MatchString(in.SecretID):
			return invalidf("a token created with a chosen accessor ID needs a secret ID, both UUIDs")
		case t.Type == structs.ACLTokenTypeManagement:
			return invalidf("a management token cannot be created with chosen IDs")
		}
	} else {
		t.AccessorID = structs.GenerateUUID()
		if in.SecretID != "" && !validSecret().MatchString(in.SecretID) {
			return invalidf("a chosen secret ID must be a UUID")
		}
		if t.SecretID == "" {
			t.SecretID = structs.GenerateUUID()
		}
	}
	holder, err := st.ACLTokenBySecretID(nil, t.SecretID)
	if err != nil {
		return err
	}
	if holder != nil {
		return invalidf("the chosen secret ID is in use")
	}
	t.CreateTime = now
	switch {
	case in.ExpirationTTL < 0:
		return invalidf("expiration TTL %s is negative", in.ExpirationTTL)
	case in.ExpirationTTL > 0:
		exp := now.Add(in.ExpirationTTL)
		t.ExpirationTime, t.ExpirationTTL = &exp, in.ExpirationTTL
	case in.ExpirationTime != nil:
		if !in.ExpirationTime.After(now) {
			return invalidf("expiration time %s is not in the future", in.ExpirationTime.UTC().Format(time.RFC3339))
		}
		exp := in.ExpirationTime.UTC()
		t.ExpirationTime = &exp
	}
	return nil
}

// DeleteACLTokens removes tokens; an unknown accessor ID is ErrNotFound.
func (s *Server) DeleteACLTokens(ctx context.Context, req *ACLTokenDeleteRequest) (*IndexResponse, error) {
	return userWrite(ctx, s, "ACL.DeleteTokens", req, management, func(ctx context.Context, req *ACLTokenDeleteRequest) (*IndexResponse, error) {
		if err := s.requireACL(); err != nil {
			return nil, err
		}
		index, err := s.raftApply(ctx, logentry.MsgACLTokenDelete, &logentry.ACLTokenDelete{AccessorIDs: req.AccessorIDs})
		return &IndexResponse{Index: index}, err
	})
}

// ACLResolveTokenRequest asks what an ACL secret's token is, for a client
// agent that checks its own HTTP requests. It proves the node's identity,
// as every call of a client does.
type ACLResolveTokenRequest struct {
	NodeID   string
	SecretID string
	// Token is the ACL secret to resolve.
	Token string
}

// ACLResolveTokenResponse is the token (nil for the anonymous caller) and
// the policies it names that exist.
type ACLResolveTokenResponse struct {
	Token    *structs.ACLToken
	Policies []*structs.ACLPolicy
}

// resolveTokenPolicies is what ACL.ResolveToken answers: the caller must
// know the secret, so it learns nothing it could not do already.
func (s *Server) resolveTokenPolicies(ctx context.Context, secret string) (*ACLResolveTokenResponse, error) {
	if err := s.requireACL(); err != nil {
		return nil, err
	}
	resp := &ACLResolveTokenResponse{}
	names := []string{structs.AnonymousPolicyName}
	if secret != "" {
		token, err := s.lookupToken(ctx, secret)
		if err != nil {
			return nil, err
		}
		resp.Token, names = token, token.Policies
	}
	st := s.State()
	for _, name := range names {
		p, err := st.ACLPolicyByName(nil, name)
		if err != nil {
			return nil, err
		}
		if p != nil {
			resp.Policies = append(resp.Policies, p)
		}
	}
	return resp, nil
}

// aclRPC serves the ACL writes forwarded by other servers, and token
// resolution for client agents.
type aclRPC struct{ srv *Server }

// Bootstrap serves BootstrapACL. It needs no token: it is how the first
// one is made, and it works once.
func (e *aclRPC) Bootstrap(args *ACLBootstrapRequest, reply *ACLTokenResponse) error {
	return e.srv.serveRPC(func(ctx context.Context) error {
		return fill(reply)(e.srv.BootstrapACL(ctx, args))
	})
}

// UpsertPolicies serves UpsertACLPolicies.
func (e *aclRPC) UpsertPolicies(args *ACLPolicyUpsertRequest, reply *IndexResponse) error {
	return e.srv.serveUserRPC(args.AuthToken, func(ctx context.Context) error {
		return fill(reply)(e.srv.UpsertACLPolicies(ctx, args))
	})
}

// DeletePolicies serves DeleteACLPolicies.
func (e *aclRPC) DeletePolicies(args *ACLPolicyDeleteRequest, reply *IndexResponse) error {
	return e.srv.serveUserRPC(args.AuthToken, func(ctx context.Context) error {
		return fill(reply)(e.srv.DeleteACLPolicies(ctx, args))
	})
}

// UpsertTokens serves UpsertACLTokens.
func (e *aclRPC) UpsertTokens(args *ACLTokenUpsertRequest, reply *ACLTokenUpsertResponse) error {
	return e.srv.serveUserRPC(args.AuthToken, func(ctx context.Context) error {
		return fill(reply)(e.srv.UpsertACLTokens(ctx, args))
	})
}

// DeleteTokens serves DeleteACLTokens.
func (e *aclRPC) DeleteTokens(args *ACLTokenDeleteRequest, reply *IndexResponse) error {
	return e.srv.serveUserRPC(args.AuthToken, func(ctx context.Context) error {
		return fill(reply)(e.srv.DeleteACLTokens(ctx, args))
	})
}

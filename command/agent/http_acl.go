package agent

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/internal/authcount"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/nomad/auth"
	"github.com/drover-io/drover/structs"
)

// Where a request's ACL secret is read from: Nomad's header, or a bearer
// token, as Nomad also takes (Prometheus and other tools send one).
const (
	headerToken         = "X-Nomad-Token"
	headerAuthorization = "Authorization"
)

// identity is who a request acts for: what it may do, the token (nil for
// the anonymous caller and without ACLs) and the secret it came with.
type identity struct {
	acl    *acl.ACL
	token  *structs.ACLToken
	secret string
}

// identityKey carries the identity in a request's context.
type identityKey struct{}

// requestIdentity returns the identity the route check resolved. A request
// that was never checked (a public route) may do nothing.
func requestIdentity(r *http.Request) *identity {
	if id, ok := r.Context().Value(identityKey{}).(*identity); ok {
		return id
	}
	return &identity{}
}

// requestSecret reads the ACL secret a request carries, "" for none.
func requestSecret(r *http.Request) string {
	if s := strings.TrimSpace(r.Header.Get(headerToken)); s != "" {
		return s
	}
	if auth := r.Header.Get(headerAuthorization); auth != "" {
		if s, ok := strings.CutPrefix(auth, "Bearer "); ok {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// tokenResolver says what a secret may do.
type tokenResolver interface {
	resolve(ctx context.Context, secret string) (*acl.ACL, *structs.ACLToken, error)
}

// serverResolver resolves tokens against the agent's own server.
type serverResolver struct{ srv *nomad.Server }

func (r serverResolver) resolve(ctx context.Context, secret string) (*acl.ACL, *structs.ACLToken, error) {
	return r.srv.ResolveToken(ctx, secret)
}

// resolveIdentity resolves the request's secret. Without ACLs every
// request may do everything, and the secret is not looked at.
func (s *HTTPServer) resolveIdentity(r *http.Request) (*identity, error) {
	if !s.agent.config.ACL.Enabled {
		return &identity{acl: acl.Management()}, nil
	}
	if s.agent.tokens == nil {
		return nil, httpserver.NewError(http.StatusInternalServerError, "ACLs are enabled but this agent has no way to resolve tokens")
	}
	secret := requestSecret(r)
	a, token, err := s.agent.tokens.resolve(r.Context(), secret)
	if err != nil {
		return nil, err
	}
	return &identity{acl: a, token: token, secret: secret}, nil
}

// authorize resolves the request's identity and checks what the route
// needs, unless the server or the handler does (a Server route, or one
// whose namespace is the submitted job's): each request is checked once.
// On success it returns the request with the identity, and the secret
// for any write the server forwards, in its context.
func (s *HTTPServer) authorize(r *http.Request, need httpserver.Access) (*http.Request, error) {
	if need.Kind == httpserver.AccessPublic {
		return r, nil
	}
	id, err := s.resolveIdentity(r)
	if err != nil {
		authcount.Add() // a token that does not resolve is refused here
		return nil, err
	}
	if !need.Server && need.Kind != httpserver.AccessJobBody {
		if err := s.check(r, need, id); err != nil {
			return nil, err
		}
	}
	ctx := context.WithValue(r.Context(), identityKey{}, id)
	ctx = auth.WithCaller(nomad.WithAuthToken(ctx, id.secret), id.acl)
	return r.WithContext(ctx), nil
}

// check answers whether id may call a route that needs need.
func (s *HTTPServer) check(r *http.Request, need httpserver.Access, id *identity) error {
	authcount.Add()
	a := id.acl
	var ok bool
	switch need.Kind {
	case httpserver.AccessToken:
		if s.agent.config.ACL.Enabled && id.token == nil {
			return fmt.Errorf("%w: this endpoint needs a token", nomad.ErrTokenNotFound)
		}
		ok = true
	case httpserver.AccessManagement:
		ok = a.IsManagement()
	case httpserver.AccessNamespace:
		ok = a.AllowNamespaceAny(httpserver.ParseNamespace(r.URL.Query()), need.Caps...) || workloadAllowed(r, a, "")
	case httpserver.AccessAllocNamespace:
		ns, found, err := s.allocNamespace(r)
		if err != nil {
			return err
		}
		ok = !found || a.AllowNamespaceAny(ns, need.Caps...) || workloadAllowed(r, a, ns)
	case httpserver.AccessEvalNamespace:
		ns, found, err := s.evalNamespace(r)
		if err != nil {
			return err
		}
		ok = !found || a.AllowNamespaceAny(ns, need.Caps...)
	case httpserver.AccessDeploymentNamespace:
		ns, found, err := s.deploymentNamespace(r)
		if err != nil {
			return err
		}
		ok = !found || a.AllowNamespaceAny(ns, need.Caps...)
	case httpserver.AccessNamespaceNamed:
		ok = a.AllowNamespace(r.PathValue("name"))
	case httpserver.AccessNodeRead:
		ok = a.AllowNodeRead()
	case httpserver.AccessNodeWrite:
		ok = a.AllowNodeWrite()
	case httpserver.AccessAgentRead:
		ok = a.AllowAgentRead()
	case httpserver.AccessOperatorCapability:
		ok = a.IsManagement() || a.AllowOperatorCapability(need.Caps[0])
	case httpserver.AccessTokenOwner:
		ok = a.IsManagement() || (id.token != nil && id.token.AccessorID == r.PathValue("id"))
	case httpserver.AccessPolicyHolder:
		ok = nomad.PolicyVisible(nomad.QueryOptions{ACL: a, Token: id.token}, r.PathValue("name"))
	case httpserver.AccessListed:
		ok = true
	case httpserver.AccessVariable:
		ok = a.AllowVariableOperation(httpserver.ParseNamespace(r.URL.Query()), r.PathValue("path"), need.Caps[0])
	case httpserver.AccessVariableList:
		ok = a.AllowVariableSearch(httpserver.ParseNamespace(r.URL.Query()))
	default:
		return fmt.Errorf("route %s %s has an unknown access rule %d", r.Method, r.URL.Path, need.Kind)
	}
	if !ok {
		return fmt.Errorf("%w: %s needs %s", nomad.ErrPermissionDenied, r.URL.Path, need)
	}
	return nil
}

// allowJobNamespace is the check of an httpserver.AccessJobBody route
// that the server does not check: the submitted job's namespace must
// grant one of caps.
func allowJobNamespace(r *http.Request, namespace string, caps ...string) error {
	authcount.Add()
	if !requestIdentity(r).acl.AllowNamespaceAny(namespace, caps...) {
		return fmt.Errorf("%w: this needs %s in namespace %q", nomad.ErrPermissionDenied, strings.Join(caps, " or "), namespace)
	}
	return nil
}

// allocNamespace is the namespace of the allocation the URL names, as
// this agent's client runs it or its server knows it; found is false when
// neither knows it, and the handler then answers that it does not exist.
func (s *HTTPServer) allocNamespace(r *http.Request) (string, bool, error) {
	id := r.PathValue("id")
	if c := s.agent.client; c != nil {
		if ar, err := c.AllocRunner(id); err == nil {
			return ar.Alloc().Namespace, true, nil
		}
	}
	if srv := s.agent.server; srv != nil {
		alloc, _, err := srv.GetAlloc(r.Context(), id, localLookup)
		if err != nil || alloc == nil {
			return "", false, err
		}
		return alloc.Namespace, true, nil
	}
	return "", false, nil
}

// evalNamespace is the namespace of the evaluation the URL names.
func (s *HTTPServer) evalNamespace(r *http.Request) (string, bool, error) {
	srv := s.agent.server
	if srv == nil {
		return "", false, nil
	}
	info, _, err := srv.GetEval(r.Context(), r.PathValue("id"), false, localLookup)
	if err != nil || info == nil {
		return "", false, err
	}
	return info.Eval.Namespace, true, nil
}

// deploymentNamespace is the namespace of the deployment {id}; found is
// false when there is none (the handler then answers 404).
func (s *HTTPServer) deploymentNamespace(r *http.Request) (string, bool, error) {
	srv := s.agent.server
	if srv == nil {
		return "", false, nil
	}
	d, _, err := srv.GetDeployment(r.Context(), r.PathValue("id"), localLookup)
	if err != nil || d == nil {
		return "", false, err
	}
	return d.Namespace, true, nil
}

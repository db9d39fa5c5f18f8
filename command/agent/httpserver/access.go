package httpserver

import (
	"fmt"
	"strings"
)

// Access is what a route needs of its caller's ACL token. Every route
// names one (see NewRoute), so a route cannot exist without a check; the
// agent's AuthorizeFunc decides what each kind means for a token.
type Access struct {
	Kind AccessKind
	// Server says that the server method the route's handler calls makes
	// the check, on the caller's identity the agent hands in with the
	// request (nomad/auth.WithCaller): the route declares what it needs, and
	// the agent only resolves the caller. Every write the server serves is
	// such a route, so that it is checked once, there.
	Server bool
	// Caps are namespace capabilities, any one of which will do, or the
	// operator capability of AccessOperatorCapability.
	Caps []string
}

// AccessKind is the kind of check a route needs.
type AccessKind int

const (
	// AccessPublic: no token needed: status, metrics, the bootstrap.
	AccessPublic AccessKind = iota
	// AccessToken: a token, of any kind (the anonymous caller has none).
	AccessToken
	// AccessManagement: a management token.
	AccessManagement
	// AccessNamespace: one of caps in the request's namespace
	// (?namespace=, "default" when absent; "*" asks for any namespace,
	// and the list that follows is filtered).
	AccessNamespace
	// AccessJobBody: one of caps in the namespace of the job in the body,
	// which the route cannot read: the server (Server routes) or the
	// handler checks it.
	AccessJobBody
	// AccessAllocNamespace, AccessEvalNamespace: one of caps in the
	// namespace of the allocation or evaluation the URL names.
	AccessAllocNamespace
	AccessEvalNamespace
	// AccessDeploymentNamespace: one of caps in the namespace of the
	// deployment the URL names.
	AccessDeploymentNamespace
	// AccessNamespaceNamed: anything at all in the namespace {name}.
	AccessNamespaceNamed
	AccessNodeRead
	AccessNodeWrite
	AccessAgentRead
	// AccessOperatorCapability: management, or the operator capability
	// caps[0].
	AccessOperatorCapability
	// AccessTokenOwner: management, or the token whose accessor ID is {id}.
	AccessTokenOwner
	// AccessPolicyHolder: management, or a token that names policy {name}.
	AccessPolicyHolder
	// AccessListed: any caller whose token resolves; what the answer lists
	// is filtered to what the caller may see.
	AccessListed
	// AccessVariable: the variables capability caps[0] on the variable
	// {path} in the request's namespace.
	AccessVariable
	// AccessVariableList: variables list on some path of the request's
	// namespace; the list is filtered to the paths the caller may list.
	AccessVariableList
)

// String says what the route needs, as errors and the ACL concepts page
// (whose table of endpoints is checked against the routes) put it.
func (a Access) String() string {
	names := map[AccessKind]string{
		AccessPublic:         "none",
		AccessToken:          "any token",
		AccessManagement:     "management",
		AccessNamespaceNamed: "anything in the namespace",
		AccessNodeRead:       "node:read",
		AccessNodeWrite:      "node:write",
		AccessAgentRead:      "agent:read",
		AccessTokenOwner:     "management, or the token itself",
		AccessPolicyHolder:   "management, or a token holding the policy",
		AccessListed:         "any (filtered)",
		AccessVariableList:   "variables:list (filtered)",
	}
	caps := "namespace:" + strings.Join(a.Caps, " or ")
	switch a.Kind {
	case AccessNamespace:
		return caps
	case AccessJobBody:
		return caps + " (the job's namespace)"
	case AccessAllocNamespace:
		return caps + " (the allocation's namespace)"
	case AccessEvalNamespace:
		return caps + " (the evaluation's namespace)"
	case AccessDeploymentNamespace:
		return caps + " (the deployment's namespace)"
	case AccessOperatorCapability:
		return "management, or operator:" + a.Caps[0]
	case AccessVariable:
		return "variables:" + a.Caps[0] + " (the variable's path)"
	}
	if name, ok := names[a.Kind]; ok {
		return name
	}
	return fmt.Sprintf("access(%d)", a.Kind)
}

package agent

import (
	"fmt"
	"strings"

	"github.com/drover-io/drover/acl"
)

// access is what a route needs of its caller's ACL token. Every route
// names one when it is registered (routes.go), so a route cannot exist
// without a check.
type access struct {
	kind accessKind
	// caps are namespace capabilities, any one of which will do, or the
	// operator capability of accessOperatorCapability.
	caps []string
}

type accessKind int

const (
	// accessPublic: no token needed: status, metrics, the bootstrap.
	accessPublic accessKind = iota
	// accessToken: a token, of any kind (the anonymous caller has none).
	accessToken
	// accessManagement: a management token.
	accessManagement
	// accessNamespace: one of caps in the request's namespace
	// (?namespace=, "default" when absent; "*" asks for any namespace,
	// and the list that follows is filtered).
	accessNamespace
	// accessJobBody: one of caps in the namespace of the job in the body.
	// The route checks the token grants one in some namespace; the
	// handler checks the job's, with allowJobNamespace or nomad's Allow*.
	accessJobBody
	// accessAllocNamespace, accessEvalNamespace: one of caps in the
	// namespace of the allocation or evaluation the URL names.
	accessAllocNamespace
	accessEvalNamespace
	// accessNamespaceNamed: anything at all in the namespace {name}.
	accessNamespaceNamed
	accessNodeRead
	accessNodeWrite
	accessAgentRead
	// accessOperatorCapability: management, or the operator capability
	// caps[0].
	accessOperatorCapability
	// accessTokenOwner: management, or the token whose accessor ID is {id}.
	accessTokenOwner
	// accessPolicyHolder: management, or a token that names policy {name}.
	accessPolicyHolder
	// accessListed: any caller whose token resolves; what the answer lists
	// is filtered to what the caller may see.
	accessListed
)

var (
	public        = access{kind: accessPublic}
	anyToken      = access{kind: accessToken}
	management    = access{kind: accessManagement}
	namespaceRead = access{kind: accessNamespaceNamed}
	nodeRead      = access{kind: accessNodeRead}
	nodeWrite     = access{kind: accessNodeWrite}
	agentRead     = access{kind: accessAgentRead}
	tokenOwner    = access{kind: accessTokenOwner}
	policyHolder  = access{kind: accessPolicyHolder}
	listed        = access{kind: accessListed}
)

// ns needs one of caps in the request's namespace.
func ns(caps ...string) access { return access{kind: accessNamespace, caps: caps} }

// jobNS needs one of caps in the namespace of the submitted job.
func jobNS(caps ...string) access { return access{kind: accessJobBody, caps: caps} }

// allocNS needs one of caps in the namespace of the allocation {id}.
func allocNS(caps ...string) access { return access{kind: accessAllocNamespace, caps: caps} }

// evalNS needs one of caps in the namespace of the evaluation {id}.
func evalNS(caps ...string) access { return access{kind: accessEvalNamespace, caps: caps} }

// operatorCap needs the operator capability c (or management).
func operatorCap(c string) access { return access{kind: accessOperatorCapability, caps: []string{c}} }

// Capabilities the routes use, by what they guard.
var (
	submitJob     = []string{acl.CapSubmitJob, acl.CapRegisterJob}
	stopJob       = []string{acl.CapSubmitJob, acl.CapDeregisterJob, acl.CapPurgeJob}
	planJob       = []string{acl.CapSubmitJob, acl.CapPlanJob}
	parseJob      = []string{acl.CapParseJob, acl.CapSubmitJob}
	forcePeriodic = []string{acl.CapSubmitJob, acl.CapDispatchJob, acl.CapForcePeriodicJob}
)

// String says what the route needs, as errors and the ACL concepts page
// (whose table of endpoints is checked against the routes) put it.
func (a access) String() string {
	names := map[accessKind]string{
		accessPublic:         "none",
		accessToken:          "any token",
		accessManagement:     "management",
		accessNamespaceNamed: "anything in the namespace",
		accessNodeRead:       "node:read",
		accessNodeWrite:      "node:write",
		accessAgentRead:      "agent:read",
		accessTokenOwner:     "management, or the token itself",
		accessPolicyHolder:   "management, or a token holding the policy",
		accessListed:         "any (filtered)",
	}
	caps := "namespace:" + strings.Join(a.caps, " or ")
	switch a.kind {
	case accessNamespace:
		return caps
	case accessJobBody:
		return caps + " (the job's namespace)"
	case accessAllocNamespace:
		return caps + " (the allocation's namespace)"
	case accessEvalNamespace:
		return caps + " (the evaluation's namespace)"
	case accessOperatorCapability:
		return "management, or operator:" + a.caps[0]
	}
	if name, ok := names[a.kind]; ok {
		return name
	}
	return fmt.Sprintf("access(%d)", a.kind)
}

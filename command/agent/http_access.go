package agent

import (
	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/command/agent/httpserver"
)

// What routes need of their caller's ACL token, as the route table
// (routes.go) names it; http_acl.go says what each kind means for a token.
var (
	public        = httpserver.Access{Kind: httpserver.AccessPublic}
	anyToken      = httpserver.Access{Kind: httpserver.AccessToken}
	management    = httpserver.Access{Kind: httpserver.AccessManagement}
	namespaceRead = httpserver.Access{Kind: httpserver.AccessNamespaceNamed}
	nodeRead      = httpserver.Access{Kind: httpserver.AccessNodeRead}
	nodeWrite     = httpserver.Access{Kind: httpserver.AccessNodeWrite}
	agentRead     = httpserver.Access{Kind: httpserver.AccessAgentRead}
	tokenOwner    = httpserver.Access{Kind: httpserver.AccessTokenOwner}
	policyHolder  = httpserver.Access{Kind: httpserver.AccessPolicyHolder}
	listed        = httpserver.Access{Kind: httpserver.AccessListed}
)

// byServer marks a route whose check the server makes (see
// httpserver.Access.Server).
func byServer(a httpserver.Access) httpserver.Access {
	a.Server = true
	return a
}

// ns needs one of caps in the request's namespace.
func ns(caps ...string) httpserver.Access {
	return httpserver.Access{Kind: httpserver.AccessNamespace, Caps: caps}
}

// jobNS needs one of caps in the namespace of the submitted job.
func jobNS(caps ...string) httpserver.Access {
	return httpserver.Access{Kind: httpserver.AccessJobBody, Caps: caps}
}

// allocNS needs one of caps in the namespace of the allocation {id}.
func allocNS(caps ...string) httpserver.Access {
	return httpserver.Access{Kind: httpserver.AccessAllocNamespace, Caps: caps}
}

// evalNS needs one of caps in the namespace of the evaluation {id}.
func evalNS(caps ...string) httpserver.Access {
	return httpserver.Access{Kind: httpserver.AccessEvalNamespace, Caps: caps}
}

// deploymentNS needs one of caps in the namespace of the deployment {id}.
func deploymentNS(caps ...string) httpserver.Access {
	return httpserver.Access{Kind: httpserver.AccessDeploymentNamespace, Caps: caps}
}

// variable needs the variables capability c on the variable {path}.
func variable(c string) httpserver.Access {
	return httpserver.Access{Kind: httpserver.AccessVariable, Caps: []string{c}}
}

// variablesList needs variables list on some path of the namespace.
var variablesList = httpserver.Access{Kind: httpserver.AccessVariableList}

// operatorCap needs the operator capability c (or management).
func operatorCap(c string) httpserver.Access {
	return httpserver.Access{Kind: httpserver.AccessOperatorCapability, Caps: []string{c}}
}

// Capabilities the routes use, by what they guard.
var (
	submitJob     = []string{acl.CapSubmitJob, acl.CapRegisterJob}
	evaluateJob   = []string{acl.CapSubmitJob}
	stopJob       = []string{acl.CapSubmitJob, acl.CapDeregisterJob, acl.CapPurgeJob}
	planJob       = []string{acl.CapSubmitJob, acl.CapPlanJob}
	parseJob      = []string{acl.CapParseJob, acl.CapSubmitJob}
	forcePeriodic = []string{acl.CapSubmitJob, acl.CapDispatchJob, acl.CapForcePeriodicJob}
	dispatchJob   = []string{acl.CapDispatchJob}
)

package agent

import (
	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/command/agent/httpserver"
)

// routes is the route table: every endpoint of the HTTP API, under
// Nomad's paths, each with what it needs of the caller's ACL token (see
// http_access.go). Writes accept both PUT and POST, as Nomad's do. A
// route's body is capped at limits.http_max_body_size unless an option
// says otherwise; a stream must be marked httpserver.LongLived.
//
// This is the one table: TestRoutes_everyRouteChecksItsCapability reads it
// from a live agent and calls each route without a token, with one that
// lacks what the route needs and with one that has it, and
// TestRoutes_documented holds it to the docs' table.
func (s *HTTPServer) routes() []httpserver.Route {
	var routes []httpserver.Route
	handle := func(pattern string, need httpserver.Access, h httpserver.HandlerFunc, opts ...httpserver.RouteOption) {
		routes = append(routes, httpserver.NewRoute(pattern, need, h, opts...))
	}
	write := func(path string, need httpserver.Access, h httpserver.HandlerFunc, opts ...httpserver.RouteOption) {
		handle("PUT "+path, need, h, opts...)
		handle("POST "+path, need, h, opts...)
	}

	handle("GET /v1/jobs", ns(acl.CapListJobs), s.jobsList)
	write("/v1/jobs", jobNS(submitJob...), s.jobsRegister, httpserver.JobBody)
	write("/v1/jobs/parse", ns(parseJob...), s.jobsParse, httpserver.JobspecBody)
	write("/v1/validate/job", jobNS(acl.CapReadJob), s.validateJob, httpserver.JobBody)
	handle("GET /v1/job/{id}", ns(acl.CapReadJob), s.jobRead)
	write("/v1/job/{id}", jobNS(submitJob...), s.jobUpdate, httpserver.JobBody)
	handle("DELETE /v1/job/{id}", ns(stopJob...), s.jobDelete)
	handle("GET /v1/job/{id}/allocations", ns(acl.CapReadJob), s.jobAllocations)
	handle("GET /v1/job/{id}/evaluations", ns(acl.CapReadJob), s.jobEvaluations)
	handle("GET /v1/job/{id}/summary", ns(acl.CapReadJob), s.jobSummary)
	handle("GET /v1/job/{id}/versions", ns(acl.CapReadJob), s.jobVersions)
	handle("GET /v1/job/{id}/deployment", ns(acl.CapReadJob), s.jobDeployment)
	write("/v1/job/{id}/periodic/force", ns(forcePeriodic...), s.jobPeriodicForce)
	write("/v1/job/{id}/evaluate", ns(acl.CapSubmitJob), s.jobEvaluate)
	write("/v1/job/{id}/revert", ns(acl.CapSubmitJob), s.jobRevert)
	write(jobPlanPath, jobNS(planJob...), s.jobPlan, httpserver.JobBody)

	handle("GET /v1/allocations", ns(acl.CapReadJob), s.allocsList)
	handle("GET /v1/allocation/{id}", allocNS(acl.CapReadJob), s.allocRead)
	write("/v1/allocation/{id}/stop", allocNS(acl.CapAllocLifecycle), s.allocStop)
	// Drover's: it ends the allocation's tasks sooner or later, so it needs
	// what stopping the allocation needs.
	write("/v1/allocation/{id}/max-run-duration", allocNS(acl.CapAllocLifecycle), s.allocMaxRunDuration)

	handle("GET /v1/evaluations", ns(acl.CapReadJob), s.evalsList)
	handle("GET /v1/evaluation/{id}", evalNS(acl.CapReadJob), s.evalRead)
	handle("GET /v1/evaluation/{id}/allocations", evalNS(acl.CapReadJob), s.evalAllocations)

	handle("GET /v1/nodes", nodeRead, s.nodesList)
	handle("GET /v1/node/{id}", nodeRead, s.nodeRead)
	handle("GET /v1/node/{id}/allocations", nodeRead, s.nodeAllocations)
	write("/v1/node/{id}/eligibility", nodeWrite, s.nodeEligibility)
	write("/v1/node/{id}/drain", nodeWrite, s.nodeDrain)
	write("/v1/node/{id}/evaluate", nodeWrite, s.nodeEvaluate)
	write("/v1/node/{id}/purge", nodeWrite, s.nodePurge)

	handle("GET /v1/status/leader", public, s.statusLeader)
	handle("GET /v1/status/peers", public, s.statusPeers)
	handle("GET /v1/regions", public, s.regionsList)

	handle("GET /v1/agent/self", agentRead, s.agentSelfHandler)
	handle("GET /v1/agent/members", nodeRead, s.agentMembers)
	handle("GET /v1/agent/health", public, s.agentHealthHandler)

	handle("GET /v1/event/stream", listed, s.eventStream, httpserver.LongLived)

	handle("GET /v1/metrics", public, s.metricsHandler)
	handle("GET "+keyringKeysPath, management, s.keyringList)
	write(keyringRotatePath, management, s.keyringRotate)
	handle("DELETE "+keyringKeyPath, management, s.keyringDelete)
	handle("GET "+jwksPath, public, s.jwksRead)
	handle("GET "+oidcConfigPath, public, s.oidcConfigRead)
	// Both snapshot routes are long-lived: an archive of a large state
	// takes longer than an ordinary request to send.
	handle("GET "+operatorSnapshotPath, operatorCap(acl.OperatorSnapshotSave), s.snapshotSave, httpserver.LongLived)
	handle("PUT "+operatorSnapshotPath, management, s.snapshotRestore, httpserver.LongLived,
		httpserver.BodyLimit(maxSnapshotBytes, "1GiB, the most a snapshot archive may be"))

	handle("GET /v1/client/fs/logs/{id}", allocNS(acl.CapReadLogs), s.fsLogs, httpserver.LongLived)
	handle("GET /v1/client/fs/ls/{id}", allocNS(acl.CapReadFS), s.fsList)
	handle("GET /v1/client/fs/stat/{id}", allocNS(acl.CapReadFS), s.fsStat)
	handle("GET /v1/client/fs/cat/{id}", allocNS(acl.CapReadFS), s.fsCat)
	handle("GET /v1/client/allocation/{id}/stats", allocNS(acl.CapReadJob), s.clientAllocStats)
	handle("GET /v1/client/allocation/{id}/checks", allocNS(acl.CapReadJob), s.clientAllocChecks)
	write("/v1/client/allocation/{id}/restart", allocNS(acl.CapAllocLifecycle), s.clientAllocRestart)
	write("/v1/client/allocation/{id}/signal", allocNS(acl.CapAllocLifecycle), s.clientAllocSignal)

	write("/v1/acl/bootstrap", public, s.aclBootstrap)
	handle("GET /v1/acl/policies", listed, s.aclPoliciesList)
	handle("GET /v1/acl/policy/{name}", policyHolder, s.aclPolicyRead)
	write("/v1/acl/policy/{name}", management, s.aclPolicyWrite)
	handle("DELETE /v1/acl/policy/{name}", management, s.aclPolicyDelete)
	handle("GET /v1/acl/tokens", management, s.aclTokensList)
	write("/v1/acl/token", management, s.aclTokenCreate)
	handle("GET /v1/acl/token/self", anyToken, s.aclTokenSelf)
	handle("GET /v1/acl/token/{id}", tokenOwner, s.aclTokenRead)
	write("/v1/acl/token/{id}", management, s.aclTokenUpdate)
	handle("DELETE /v1/acl/token/{id}", management, s.aclTokenDelete)

	handle("GET /v1/namespaces", listed, s.namespacesList)
	write("/v1/namespace", management, s.namespaceWrite)
	handle("GET /v1/namespace/{name}", namespaceRead, s.namespaceRead)
	write("/v1/namespace/{name}", management, s.namespaceWrite)
	handle("DELETE /v1/namespace/{name}", management, s.namespaceDelete)
	return routes
}

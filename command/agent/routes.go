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
//
// website/api_docs_test.go reads the table from this source: keep each
// route a t.handle call, or a call of a helper such as write, with the
// pattern or path a string constant.
func (s *HTTPServer) routes() []httpserver.Route {
	var t routeTable
	write := func(path string, need httpserver.Access, h httpserver.HandlerFunc, opts ...httpserver.RouteOption) {
		t.handle("PUT "+path, need, h, opts...)
		t.handle("POST "+path, need, h, opts...)
	}

	t.handle("GET /v1/jobs", ns(acl.CapListJobs), s.jobsList)
	write("/v1/jobs", byServer(jobNS(submitJob...)), s.jobsRegister, httpserver.JobBody)
	write("/v1/jobs/parse", ns(parseJob...), s.jobsParse, httpserver.JobspecBody)
	write("/v1/validate/job", jobNS(acl.CapReadJob), s.validateJob, httpserver.JobBody)
	t.handle("GET /v1/job/{id}", ns(acl.CapReadJob), s.jobRead)
	write("/v1/job/{id}", byServer(jobNS(submitJob...)), s.jobUpdate, httpserver.JobBody)
	t.handle("DELETE /v1/job/{id}", byServer(ns(stopJob...)), s.jobDelete)
	t.handle("GET /v1/job/{id}/allocations", ns(acl.CapReadJob), s.jobAllocations)
	t.handle("GET /v1/job/{id}/evaluations", ns(acl.CapReadJob), s.jobEvaluations)
	t.handle("GET /v1/job/{id}/summary", ns(acl.CapReadJob), s.jobSummary)
	t.handle("GET /v1/job/{id}/versions", ns(acl.CapReadJob), s.jobVersions)
	t.handle("GET /v1/job/{id}/runtimes", ns(acl.CapReadJob), s.jobRunTimes)
	t.handle("GET /v1/job/{id}/deployment", ns(acl.CapReadJob), s.jobDeployment)
	t.handle("GET /v1/job/{id}/deployments", ns(acl.CapReadJob), s.jobDeployments)
	t.handle("GET /v1/deployments", ns(acl.CapReadJob), s.deploymentsList)
	t.handle("GET /v1/deployment/{id}", deploymentNS(acl.CapReadJob), s.deploymentRead)
	t.handle("GET /v1/deployment/allocations/{id}", deploymentNS(acl.CapReadJob), s.deploymentAllocations)
	write("/v1/deployment/fail/{id}", byServer(deploymentNS(acl.CapSubmitJob)), s.deploymentFail)
	write("/v1/deployment/pause/{id}", byServer(deploymentNS(acl.CapSubmitJob)), s.deploymentPause)
	write("/v1/deployment/promote/{id}", byServer(deploymentNS(acl.CapSubmitJob)), s.deploymentPromote)
	write("/v1/deployment/allocation-health/{id}", byServer(deploymentNS(acl.CapSubmitJob)), s.deploymentAllocHealth)
	write("/v1/job/{id}/periodic/force", byServer(ns(forcePeriodic...)), s.jobPeriodicForce)
	write("/v1/job/{id}/dispatch", byServer(ns(dispatchJob...)), s.jobDispatch)
	write("/v1/job/{id}/evaluate", byServer(ns(evaluateJob...)), s.jobEvaluate)
	write("/v1/job/{id}/revert", byServer(ns(submitJob...)), s.jobRevert)
	write(jobPlanPath, byServer(jobNS(planJob...)), s.jobPlan, httpserver.JobBody)

	t.handle("GET /v1/allocations", ns(acl.CapReadJob), s.allocsList)
	t.handle("GET /v1/allocation/{id}", allocNS(acl.CapReadJob), s.allocRead)
	write("/v1/allocation/{id}/stop", byServer(allocNS(acl.CapAllocLifecycle)), s.allocStop)
	// Drover's: it ends the allocation's tasks sooner or later, so it needs
	// what stopping the allocation needs.
	write("/v1/allocation/{id}/max-run-duration", byServer(allocNS(acl.CapAllocLifecycle)), s.allocMaxRunDuration)

	t.handle("GET /v1/evaluations", ns(acl.CapReadJob), s.evalsList)
	t.handle("GET /v1/evaluation/{id}", evalNS(acl.CapReadJob), s.evalRead)
	t.handle("GET /v1/evaluation/{id}/allocations", evalNS(acl.CapReadJob), s.evalAllocations)

	t.handle("GET /v1/nodes", nodeRead, s.nodesList)
	t.handle("GET /v1/node/{id}", nodeRead, s.nodeRead)
	t.handle("GET /v1/node/{id}/allocations", nodeRead, s.nodeAllocations)
	write("/v1/node/{id}/eligibility", byServer(nodeWrite), s.nodeEligibility)
	write("/v1/node/{id}/drain", byServer(nodeWrite), s.nodeDrain)
	write("/v1/node/{id}/evaluate", byServer(nodeWrite), s.nodeEvaluate)
	write("/v1/node/{id}/purge", byServer(nodeWrite), s.nodePurge)

	t.handle("GET /v1/status/leader", public, s.statusLeader)
	t.handle("GET /v1/status/peers", public, s.statusPeers)
	t.handle("GET /v1/regions", public, s.regionsList)

	t.handle("GET /v1/agent/self", agentRead, s.agentSelfHandler)
	t.handle("GET /v1/agent/members", nodeRead, s.agentMembers)
	t.handle("GET /v1/agent/health", public, s.agentHealthHandler)

	t.handle("GET /v1/event/stream", listed, s.eventStream, httpserver.LongLived)

	t.handle("GET /v1/metrics", public, s.metricsHandler)
	t.handle("GET "+keyringKeysPath, management, s.keyringList)
	write(keyringRotatePath, byServer(management), s.keyringRotate)
	t.handle("DELETE "+keyringKeyPath, byServer(management), s.keyringDelete)
	t.handle("GET "+jwksPath, public, s.jwksRead)
	t.handle("GET "+oidcConfigPath, public, s.oidcConfigRead)
	// Both snapshot routes are long-lived: an archive of a large state
	// takes longer than an ordinary request to send.
	t.handle("GET "+operatorSnapshotPath, operatorCap(acl.OperatorSnapshotSave), s.snapshotSave, httpserver.LongLived)
	t.handle("PUT "+operatorSnapshotPath, byServer(management), s.snapshotRestore, httpserver.LongLived,
		httpserver.BodyLimit(maxSnapshotBytes, "1GiB, the most a snapshot archive may be"))

	t.handle("GET /v1/client/fs/logs/{id}", allocNS(acl.CapReadLogs), s.fsLogs, httpserver.LongLived)
	t.handle("GET /v1/client/fs/ls/{id}", allocNS(acl.CapReadFS), s.fsList)
	t.handle("GET /v1/client/fs/stat/{id}", allocNS(acl.CapReadFS), s.fsStat)
	t.handle("GET /v1/client/fs/cat/{id}", allocNS(acl.CapReadFS), s.fsCat)
	t.handle("GET /v1/client/stats", nodeRead, s.clientHostStats)
	t.handle("GET /v1/client/allocation/{id}/stats", allocNS(acl.CapReadJob), s.clientAllocStats)
	t.handle("GET /v1/client/allocation/{id}/checks", allocNS(acl.CapReadJob), s.clientAllocChecks)
	write("/v1/client/allocation/{id}/restart", allocNS(acl.CapAllocLifecycle), s.clientAllocRestart)
	write("/v1/client/allocation/{id}/signal", allocNS(acl.CapAllocLifecycle), s.clientAllocSignal)
	// Nomad's client asks for these two with GET; PUT and POST are
	// what a write should be.
	t.handle("GET /v1/client/allocation/{id}/gc", allocNS(acl.CapSubmitJob), s.clientAllocGC)
	write("/v1/client/allocation/{id}/gc", allocNS(acl.CapSubmitJob), s.clientAllocGC)
	t.handle("GET /v1/client/gc", nodeWrite, s.clientGC)
	write("/v1/client/gc", nodeWrite, s.clientGC)

	write("/v1/system/gc", byServer(management), s.systemGC)
	write("/v1/system/reconcile/summaries", byServer(management), s.systemReconcileSummaries)

	// A websocket (GET, as every websocket opens); a raw_exec task also
	// needs alloc-node-exec, which the handler checks once it knows the
	// task's driver.
	t.handle("GET /v1/client/allocation/{id}/exec", allocNS(acl.CapAllocExec), s.clientAllocExec, httpserver.TokenInHandshake)

	write("/v1/acl/bootstrap", public, s.aclBootstrap)
	t.handle("GET /v1/acl/policies", listed, s.aclPoliciesList)
	t.handle("GET /v1/acl/policy/{name}", policyHolder, s.aclPolicyRead)
	write("/v1/acl/policy/{name}", byServer(management), s.aclPolicyWrite)
	t.handle("DELETE /v1/acl/policy/{name}", byServer(management), s.aclPolicyDelete)
	t.handle("GET /v1/acl/tokens", management, s.aclTokensList)
	write("/v1/acl/token", byServer(management), s.aclTokenCreate)
	t.handle("GET /v1/acl/token/self", anyToken, s.aclTokenSelf)
	t.handle("GET /v1/acl/token/{id}", tokenOwner, s.aclTokenRead)
	write("/v1/acl/token/{id}", byServer(management), s.aclTokenUpdate)
	t.handle("DELETE /v1/acl/token/{id}", byServer(management), s.aclTokenDelete)

	t.handle("GET /v1/vars", byServer(variablesList), s.varsList)
	t.handle("GET /v1/var/{path...}", byServer(variable(acl.VariablesRead)), s.varRead)
	write("/v1/var/{path...}", byServer(variable(acl.VariablesWrite)), s.varWrite)
	t.handle("DELETE /v1/var/{path...}", byServer(variable(acl.VariablesDestroy)), s.varDelete)

	t.handle("GET /v1/services", ns(acl.CapReadJob), s.servicesList)
	t.handle("GET /v1/service/{name}", ns(acl.CapReadJob), s.serviceRead)
	t.handle("DELETE /v1/service/{name}/{id}", byServer(ns(acl.CapSubmitJob)), s.serviceDelete)

	t.handle("GET /v1/namespaces", listed, s.namespacesList)
	write("/v1/namespace", byServer(management), s.namespaceWrite)
	t.handle("GET /v1/namespace/{name}", namespaceRead, s.namespaceRead)
	write("/v1/namespace/{name}", byServer(management), s.namespaceWrite)
	t.handle("DELETE /v1/namespace/{name}", byServer(management), s.namespaceDelete)
	return t
}

// routeTable is the route table as routes builds it.
type routeTable []httpserver.Route

// handle adds the route of pattern ("METHOD /path/{id}"), which needs
// need of its caller, served by h as the options say.
func (t *routeTable) handle(pattern string, need httpserver.Access, h httpserver.HandlerFunc, opts ...httpserver.RouteOption) {
	*t = append(*t, httpserver.NewRoute(pattern, need, h, opts...))
}

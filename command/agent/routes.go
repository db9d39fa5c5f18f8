package agent

import "github.com/drover-io/drover/acl"

// registerRoutes registers every endpoint of the HTTP API, under Nomad's
// paths, each with what it needs of the caller's ACL token (see access).
// Writes accept both PUT and POST, as Nomad's do. A route's body is capped
// at limits.http_max_body_size unless an option says otherwise; a stream
// must be marked longLived (see serveLongLived).
//
// This is the one table: TestRoutes_everyRouteChecksItsCapability reads it
// from a live agent and calls each route without a token, with one that
// lacks what the route needs and with one that has it, and
// TestRoutes_documented holds it to the docs' table.
func (s *HTTPServer) registerRoutes() {
	write := func(path string, need access, h handlerFunc, opts ...routeOption) {
		s.handle("PUT "+path, need, h, opts...)
		s.handle("POST "+path, need, h, opts...)
	}

	s.handle("GET /v1/jobs", ns(acl.CapListJobs), s.jobsList)
	write("/v1/jobs", jobNS(submitJob...), s.jobsRegister, jobBody)
	write("/v1/jobs/parse", ns(parseJob...), s.jobsParse, jobspecBody)
	write("/v1/validate/job", jobNS(acl.CapReadJob), s.validateJob, jobBody)
	s.handle("GET /v1/job/{id}", ns(acl.CapReadJob), s.jobRead)
	write("/v1/job/{id}", jobNS(submitJob...), s.jobUpdate, jobBody)
	s.handle("DELETE /v1/job/{id}", ns(stopJob...), s.jobDelete)
	s.handle("GET /v1/job/{id}/allocations", ns(acl.CapReadJob), s.jobAllocations)
	s.handle("GET /v1/job/{id}/evaluations", ns(acl.CapReadJob), s.jobEvaluations)
	s.handle("GET /v1/job/{id}/summary", ns(acl.CapReadJob), s.jobSummary)
	s.handle("GET /v1/job/{id}/versions", ns(acl.CapReadJob), s.jobVersions)
	s.handle("GET /v1/job/{id}/deployment", ns(acl.CapReadJob), s.jobDeployment)
	write("/v1/job/{id}/periodic/force", ns(forcePeriodic...), s.jobPeriodicForce)
	write("/v1/job/{id}/evaluate", ns(acl.CapSubmitJob), s.jobEvaluate)
	write("/v1/job/{id}/revert", ns(acl.CapSubmitJob), s.jobRevert)
	write(jobPlanPath, jobNS(planJob...), s.jobPlan, jobBody)

	s.handle("GET /v1/allocations", ns(acl.CapReadJob), s.allocsList)
	s.handle("GET /v1/allocation/{id}", allocNS(acl.CapReadJob), s.allocRead)
	write("/v1/allocation/{id}/stop", allocNS(acl.CapAllocLifecycle), s.allocStop)
	// Drover's: it ends the allocation's tasks sooner or later, so it needs
	// what stopping the allocation needs.
	write("/v1/allocation/{id}/max-run-duration", allocNS(acl.CapAllocLifecycle), s.allocMaxRunDuration)

	s.handle("GET /v1/evaluations", ns(acl.CapReadJob), s.evalsList)
	s.handle("GET /v1/evaluation/{id}", evalNS(acl.CapReadJob), s.evalRead)
	s.handle("GET /v1/evaluation/{id}/allocations", evalNS(acl.CapReadJob), s.evalAllocations)

	s.handle("GET /v1/nodes", nodeRead, s.nodesList)
	s.handle("GET /v1/node/{id}", nodeRead, s.nodeRead)
	s.handle("GET /v1/node/{id}/allocations", nodeRead, s.nodeAllocations)
	write("/v1/node/{id}/eligibility", nodeWrite, s.nodeEligibility)
	write("/v1/node/{id}/drain", nodeWrite, s.nodeDrain)
	write("/v1/node/{id}/evaluate", nodeWrite, s.nodeEvaluate)
	write("/v1/node/{id}/purge", nodeWrite, s.nodePurge)

	s.handle("GET /v1/status/leader", public, s.statusLeader)
	s.handle("GET /v1/status/peers", public, s.statusPeers)
	s.handle("GET /v1/regions", public, s.regionsList)

	s.handle("GET /v1/agent/self", agentRead, s.agentSelfHandler)
	s.handle("GET /v1/agent/members", nodeRead, s.agentMembers)
	s.handle("GET /v1/agent/health", public, s.agentHealthHandler)

	s.handle("GET /v1/event/stream", listed, s.eventStream, longLived)

	s.handle("GET /v1/metrics", public, s.metricsHandler)
	s.handle("GET "+keyringKeysPath, management, s.keyringList)
	write(keyringRotatePath, management, s.keyringRotate)
	s.handle("DELETE "+keyringKeyPath, management, s.keyringDelete)
	s.handle("GET "+jwksPath, public, s.jwksRead)
	s.handle("GET "+oidcConfigPath, public, s.oidcConfigRead)
	// Both snapshot routes are long-lived: an archive of a large state
	// takes longer than an ordinary request to send.
	s.handle("GET "+operatorSnapshotPath, operatorCap(acl.OperatorSnapshotSave), s.snapshotSave, longLived)
	s.handle("PUT "+operatorSnapshotPath, management, s.snapshotRestore, longLived,
		bodyLimit(maxSnapshotBytes, "1GiB, the most a snapshot archive may be"))

	s.handle("GET /v1/client/fs/logs/{id}", allocNS(acl.CapReadLogs), s.fsLogs, longLived)
	s.handle("GET /v1/client/fs/ls/{id}", allocNS(acl.CapReadFS), s.fsList)
	s.handle("GET /v1/client/fs/stat/{id}", allocNS(acl.CapReadFS), s.fsStat)
	s.handle("GET /v1/client/fs/cat/{id}", allocNS(acl.CapReadFS), s.fsCat)
	s.handle("GET /v1/client/allocation/{id}/stats", allocNS(acl.CapReadJob), s.clientAllocStats)
	s.handle("GET /v1/client/allocation/{id}/checks", allocNS(acl.CapReadJob), s.clientAllocChecks)
	write("/v1/client/allocation/{id}/restart", allocNS(acl.CapAllocLifecycle), s.clientAllocRestart)
	write("/v1/client/allocation/{id}/signal", allocNS(acl.CapAllocLifecycle), s.clientAllocSignal)

	write("/v1/acl/bootstrap", public, s.aclBootstrap)
	s.handle("GET /v1/acl/policies", listed, s.aclPoliciesList)
	s.handle("GET /v1/acl/policy/{name}", policyHolder, s.aclPolicyRead)
	write("/v1/acl/policy/{name}", management, s.aclPolicyWrite)
	s.handle("DELETE /v1/acl/policy/{name}", management, s.aclPolicyDelete)
	s.handle("GET /v1/acl/tokens", management, s.aclTokensList)
	write("/v1/acl/token", management, s.aclTokenCreate)
	s.handle("GET /v1/acl/token/self", anyToken, s.aclTokenSelf)
	s.handle("GET /v1/acl/token/{id}", tokenOwner, s.aclTokenRead)
	write("/v1/acl/token/{id}", management, s.aclTokenUpdate)
	s.handle("DELETE /v1/acl/token/{id}", management, s.aclTokenDelete)

	s.handle("GET /v1/namespaces", listed, s.namespacesList)
	write("/v1/namespace", management, s.namespaceWrite)
	s.handle("GET /v1/namespace/{name}", namespaceRead, s.namespaceRead)
	write("/v1/namespace/{name}", management, s.namespaceWrite)
	s.handle("DELETE /v1/namespace/{name}", management, s.namespaceDelete)
}

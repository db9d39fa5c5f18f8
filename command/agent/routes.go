package agent

// registerRoutes registers every endpoint of the HTTP API, under Nomad's
// paths. Writes accept both PUT and POST, as Nomad's do. A route's body is
// capped at limits.http_max_body_size unless an option says otherwise; a
// stream must be marked longLived (see serveLongLived).
func (s *HTTPServer) registerRoutes() {
	write := func(path string, h handlerFunc, opts ...routeOption) {
		s.handle("PUT "+path, h, opts...)
		s.handle("POST "+path, h, opts...)
	}

	s.handle("GET /v1/jobs", s.jobsList)
	write("/v1/jobs", s.jobsRegister, jobBody)
	write("/v1/jobs/parse", s.jobsParse, jobspecBody)
	write("/v1/validate/job", s.validateJob, jobBody)
	s.handle("GET /v1/job/{id}", s.jobRead)
	write("/v1/job/{id}", s.jobUpdate, jobBody)
	s.handle("DELETE /v1/job/{id}", s.jobDelete)
	s.handle("GET /v1/job/{id}/allocations", s.jobAllocations)
	s.handle("GET /v1/job/{id}/evaluations", s.jobEvaluations)
	s.handle("GET /v1/job/{id}/summary", s.jobSummary)
	s.handle("GET /v1/job/{id}/versions", s.jobVersions)
	s.handle("GET /v1/job/{id}/deployment", s.jobDeployment)
	write("/v1/job/{id}/periodic/force", s.jobPeriodicForce)
	s.registerJobPlanRoutes()

	s.handle("GET /v1/allocations", s.allocsList)
	s.handle("GET /v1/allocation/{id}", s.allocRead)
	write("/v1/allocation/{id}/stop", s.allocStop)

	s.handle("GET /v1/evaluations", s.evalsList)
	s.handle("GET /v1/evaluation/{id}", s.evalRead)
	s.handle("GET /v1/evaluation/{id}/allocations", s.evalAllocations)

	s.handle("GET /v1/nodes", s.nodesList)
	s.handle("GET /v1/node/{id}", s.nodeRead)
	s.handle("GET /v1/node/{id}/allocations", s.nodeAllocations)
	write("/v1/node/{id}/eligibility", s.nodeEligibility)
	write("/v1/node/{id}/drain", s.nodeDrain)

	s.handle("GET /v1/status/leader", s.statusLeader)
	s.handle("GET /v1/status/peers", s.statusPeers)
	s.handle("GET /v1/regions", s.regionsList)

	s.handle("GET /v1/agent/self", s.agentSelfHandler)
	s.handle("GET /v1/agent/members", s.agentMembers)

	s.handle("GET /v1/event/stream", s.eventStream, longLived)

	s.handle("GET /v1/metrics", s.metricsHandler)
	s.registerOperatorSnapshotRoutes()

	s.handle("GET /v1/client/fs/logs/{id}", s.fsLogs, longLived)
	s.handle("GET /v1/client/fs/ls/{id}", s.fsList)
	s.handle("GET /v1/client/fs/stat/{id}", s.fsStat)
	s.handle("GET /v1/client/fs/cat/{id}", s.fsCat)
	s.handle("GET /v1/client/allocation/{id}/stats", s.clientAllocStats)
	s.handle("GET /v1/client/allocation/{id}/checks", s.clientAllocChecks)
	write("/v1/client/allocation/{id}/restart", s.clientAllocRestart)
	write("/v1/client/allocation/{id}/signal", s.clientAllocSignal)
}

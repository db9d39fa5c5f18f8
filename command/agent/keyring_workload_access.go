package agent

import (
	"net/http"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/command/agent/httpserver"
)

// Routes a workload identity may call, each for its own object only.
const (
	workloadAllocRoute = "/v1/allocation/{id}"
	workloadJobRoute   = "/v1/job/{id}"
)

// workloadAllowed reports whether r is a request the workload identity
// that a speaks for may make: a GET of its own allocation (in allocNS, the
// allocation's namespace) or of its own job (in the request's namespace).
// It may do nothing else; an ACL of policies is no workload's.
func workloadAllowed(r *http.Request, a *acl.ACL, allocNS string) bool {
	if a.Workload() == nil || r.Method != http.MethodGet {
		return false
	}
	switch r.Pattern {
	case workloadAllocRoute:
		return a.AllowWorkloadAlloc(allocNS, r.PathValue("id"))
	case workloadJobRoute:
		return a.AllowWorkloadJob(httpserver.ParseNamespace(r.URL.Query()), r.PathValue("id"))
	}
	return false
}

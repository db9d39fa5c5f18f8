package agent

import (
	"net/http"
	"testing"

	"github.com/shoenig/test/must"
)

// A list of a table nothing was written to is at index 0, as in Nomad,
// whose API tests check it; once written, the list is at the write's index.
func TestHTTP_EmptyListIsAtIndexZero(t *testing.T) {
	a := testAgent(t)
	for _, path := range []string{
		"/v1/nodes",
		"/v1/evaluations",
		"/v1/allocations",
		"/v1/job/none/allocations",
		"/v1/evaluation/8e231cf4-ca48-43ff-b694-5801e69e22fa/allocations",
	} {
		must.Eq(t, 0, indexOf(t, get(t, a, path, nil)), must.Sprint(path))
	}

	must.Eq(t, "[]\n", get(t, a, "/v1/nodes", nil).String())

	reg := registerJob(t, a, batchJobJSON("first"))
	must.Positive(t, reg.EvalCreateIndex)
	must.GreaterEq(t, reg.EvalCreateIndex, indexOf(t, get(t, a, "/v1/evaluations", nil)))
}

// Nomad's ACL lists floor the index at 1 (its client's tests expect it),
// unlike its other lists.
func TestHTTP_EmptyACLPolicyListIsAtIndexOne(t *testing.T) {
	a, mgmt := aclAgent(t)
	resp := doAs(t, a, mgmt, http.MethodGet, "/v1/acl/policies", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	must.Eq(t, "[]\n", resp.String())
	must.Eq(t, 1, indexOf(t, resp))
}

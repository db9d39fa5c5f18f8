package agent

import (
	"net/http"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/command/agent/httpserver"
)

func TestStatusEndpoints(t *testing.T) {
	a := testAgent(t)
	rpc := a.Server().RPCAdvertise()

	var leader string
	resp := get(t, a, "/v1/status/leader", &leader)
	must.Eq(t, rpc, leader)
	must.NotEq(t, "", resp.header.Get(httpserver.HeaderIndex))

	var peers []string
	get(t, a, "/v1/status/peers", &peers)
	must.Eq(t, []string{rpc}, peers)

	var regions []string
	get(t, a, "/v1/regions", &regions)
	must.Eq(t, []string{"global"}, regions)

	must.Eq(t, http.StatusMethodNotAllowed, do(t, a, http.MethodPut, "/v1/status/leader", nil).code)
}

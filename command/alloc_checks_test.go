package command

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

func TestFormatAllocChecks(t *testing.T) {
	at := time.Date(2026, 12, 7, 22, 40, 1, 0, time.UTC).Unix()
	out := formatAllocChecks(api.AllocCheckStatuses{
		"b": {ID: "b", Check: "port", Group: "web.g[0]", Service: "web", Status: "failure", Mode: "healthiness", Timestamp: at, Output: "nomad: tcp refused\n"},
		"a": {ID: "a", Check: "health", Group: "web.g[0]", Service: "web", Task: "server", Status: "success", StatusCode: 200, Mode: "readiness", Timestamp: at, Output: "ok"},
	})
	want := `Status of 2 Nomad Service Checks

ID        = b
Name      = port
Group     = web.g[0]
Task      = (group)
Service   = web
Status    = failure
Mode      = healthiness
Timestamp = ` + time.Unix(at, 0).Format(time.RFC3339) + `
Output    = nomad: tcp refused

ID         = a
Name       = health
Group      = web.g[0]
Task       = server
Service    = web
Status     = success
StatusCode = 200
Mode       = readiness
Timestamp  = ` + time.Unix(at, 0).Format(time.RFC3339) + `
Output     = ok`
	must.Eq(t, want, out)
	must.Eq(t, "Status of 0 Nomad Service Checks", formatAllocChecks(nil))
}

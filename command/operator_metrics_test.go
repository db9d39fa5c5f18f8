package command

import (
	"encoding/json"
	"testing"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"
)

func TestOperatorMetrics(t *testing.T) {
	_, addr := testAgent(t)

	code, out, errOut := runCLI(t, "", "operator", "metrics", "-address", addr)
	must.Eq(t, 0, code, must.Sprint(errOut))
	var summary nomadapi.MetricsSummary
	must.NoError(t, json.Unmarshal([]byte(out), &summary))
	must.StrContains(t, out, "\n    \"Gauges\": [")

	code, out, _ = runCLI(t, "", "operator", "metrics", "-address", addr, "-json")
	must.Eq(t, 0, code)
	must.NoError(t, json.Unmarshal([]byte(out), &summary))

	code, out, errOut = runCLI(t, "", "operator", "metrics", "-address", addr, "-format", "prometheus")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, "# TYPE ")
}

func TestOperatorMetrics_BadFlags(t *testing.T) {
	code, _, errOut := runCLI(t, "", "operator", "metrics", "-format", "xml")
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, `Unknown -format "xml": use json or prometheus`)

	code, _, errOut = runCLI(t, "", "operator", "metrics", "-json", "-format", "prometheus")
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "-json contradicts -format=prometheus")
}

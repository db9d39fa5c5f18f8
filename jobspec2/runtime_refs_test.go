package jobspec2

import (
	"testing"

	"github.com/shoenig/test/must"
)

func TestRuntimeReferencesKeptVerbatim(t *testing.T) {
	tests := []struct {
		name string
		expr string // the value of meta "v", as HCL
		want string
	}{
		{name: "attribute", expr: `"${attr.kernel.name}"`, want: "${attr.kernel.name}"},
		{name: "node", expr: `"${node.datacenter}"`, want: "${node.datacenter}"},
		{name: "meta", expr: `"${meta.rack}"`, want: "${meta.rack}"},
		{name: "NOMAD_ variable", expr: `"${NOMAD_ALLOC_ID}"`, want: "${NOMAD_ALLOC_ID}"},
		{name: "env index", expr: `"${env["HOME"]}"`, want: `${env["HOME"]}`},
		{name: "dashed attribute", expr: `"${attr.unique.network.ip-address}"`, want: "${attr.unique.network.ip-address}"},
		{name: "inside text", expr: `"http://${NOMAD_ADDR_http}/health"`, want: "http://${NOMAD_ADDR_http}/health"},
		{name: "beside a variable", expr: `"${var.region}-${node.unique.name}"`, want: "eu-${node.unique.name}"},
		{name: "bare reference", expr: `attr.kernel.name`, want: "${attr.kernel.name}"},
		{name: "function over runtime value kept whole", expr: `"${upper(NOMAD_TASK_NAME)}"`, want: "${upper(NOMAD_TASK_NAME)}"},
		{name: "function around runtime text", expr: `upper("x-${NOMAD_TASK_NAME}")`, want: "X-${NOMAD_TASK_NAME}"},
		{name: "escaped interpolation", expr: `"$${not.evaluated}"`, want: "${not.evaluated}"},
		{name: "heredoc", expr: "<<EOT\ndir=${NOMAD_TASK_DIR} dc=${var.region}\nEOT\n", want: "dir=${NOMAD_TASK_DIR} dc=eu\n"},
		{name: "for expression variables are not runtime", expr: `join(",", [for s in ["a", "b"] : "${s}-${NOMAD_ALLOC_INDEX}"])`, want: "a-${NOMAD_ALLOC_INDEX},b-${NOMAD_ALLOC_INDEX}"},
		{name: "whitespace in interpolation", expr: `"${ attr.os.name }"`, want: "${attr.os.name}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := "variable \"region\" {\n  default = \"eu\"\n}\njob \"j\" {\n  meta = {\n    v = " + tc.expr + "\n  }\n}\n"
			job := mustParseString(t, src)
			must.Eq(t, tc.want, job.Meta["v"])
		})
	}
}

package template_test

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/template"
	"github.com/drover-io/drover/internal/template/templatetest"
)

func TestRender_NomadService(t *testing.T) {
	src := templatetest.NewVariables()
	src.SetServices("default",
		template.Service{ID: "b", ServiceName: "db", Address: "10.0.0.2", Port: 5432, Tags: []string{"primary"}, AllocID: "a2", NodeID: "n1", JobID: "j", Datacenter: "dc1"},
		template.Service{ID: "a", ServiceName: "db", Address: "10.0.0.1", Port: 5433, Tags: []string{"replica"}},
		template.Service{ID: "c", ServiceName: "web", Address: "10.0.0.3", Port: 80},
	)
	src.SetServices("other", template.Service{ID: "d", ServiceName: "db", Address: "10.9.9.9", Port: 1})
	in := &template.Input{Variables: src, Namespace: "default"}
	cases := []struct{ text, want string }{
		{`{{ range nomadService "db" }}{{ .Address }}:{{ .Port }} {{ end }}`, "10.0.0.1:5433 10.0.0.2:5432 "},
		{`{{ range nomadService "primary.db" }}{{ .ID }} {{ .ServiceName }} {{ .AllocID }} {{ .NodeID }} {{ .JobID }} {{ .Datacenter }} {{ .Namespace }} {{ .Tags }}{{ end }}`, "b db a2 n1 j dc1 default [primary]"},
		{`{{ len (nomadService "missing") }}`, "0"},
		{`{{ range nomadServices }}{{ .Name }}{{ .Tags }} {{ end }}`, "db[primary replica] web[] "},
	}
	for _, tc := range cases {
		got, err := renderString(t, tc.text, in)
		must.NoError(t, err, must.Sprint(tc.text))
		must.Eq(t, tc.want, got, must.Sprint(tc.text))
	}
	_, err := renderString(t, `{{ nomadService "tag." }}`, in)
	must.ErrorContains(t, err, "no service name")
	_, err = renderString(t, `{{ nomadServices }}`, &template.Input{})
	must.ErrorContains(t, err, "cannot read Nomad's service registrations")
}

func TestDep_WaitSeesAServiceChange(t *testing.T) {
	src := templatetest.NewVariables()
	src.SetServices("default", template.Service{ID: "a", ServiceName: "db", Address: "10.0.0.1", Port: 1})
	tmpl, err := template.Parse("t", `{{ range nomadService "db" }}{{ .Port }}{{ end }}`, "{{", "}}", false)
	must.NoError(t, err)
	in := &template.Input{Variables: src, Namespace: "default"}
	res, err := tmpl.Render(t.Context(), in)
	must.NoError(t, err)
	must.Eq(t, "1", string(res.Output))
	must.Len(t, 1, res.Deps)
	must.True(t, res.Deps[0].Service)

	done := make(chan error, 1)
	go func() { done <- res.Deps[0].Wait(t.Context(), src) }()
	src.SetServices("default")
	must.NoError(t, <-done)

	res, err = tmpl.Render(t.Context(), in)
	must.NoError(t, err)
	must.Eq(t, "", string(res.Output))
}

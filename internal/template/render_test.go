package template_test

import (
	"context"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/template"
	"github.com/drover-io/drover/internal/template/templatetest"
)

func renderString(t *testing.T, text string, in *template.Input) (string, error) {
	t.Helper()
	tmpl, err := template.Parse("test", text, "{{", "}}", false)
	if err != nil {
		return "", err
	}
	res, err := tmpl.Render(t.Context(), in)
	if err != nil {
		return "", err
	}
	return string(res.Output), nil
}

func TestRender_Functions(t *testing.T) {
	in := &template.Input{
		Env: map[string]string{"NOMAD_TASK_NAME": "web", "EMPTY": ""},
		ReadFile: func(path string) ([]byte, error) {
			if path == "local/conf" {
				return []byte("from a file"), nil
			}
			return nil, fs.ErrNotExist
		},
	}
	cases := []struct{ text, want string }{
		{`{{ env "NOMAD_TASK_NAME" }}`, "web"},
		{`{{ env "UNSET" }}`, ""},
		{`{{ envOrDefault "EMPTY" "dflt" }}`, "dflt"},
		{`{{ or (env "UNSET") "100" }}`, "100"},
		{`{{ file "local/conf" }}`, "from a file"},
		{`{{ range split "," "a,b,c" }}[{{ . }}]{{ end }}`, "[a][b][c]"},
		{`{{ len (split "," "") }}`, "0"},
		{`{{ join "-" (split "," "a,b") }}`, "a-b"},
		{`{{ "a,b" | split "," | toJSON }}`, `["a","b"]`},
		{`{{ with parseJSON "{\"k\":[1,2]}" }}{{ index .k 1 }}{{ end }}`, "2"},
		{`{{ parseJSON "{\"k\":1}" | toJSONPretty }}`, "{\n  \"k\": 1\n}"},
		{`{{ parseInt "42" | add 1 }}`, "43"},
		{`{{ 10 | subtract 3 }} {{ 6 | multiply 7 }} {{ 10 | divide 4 }} {{ 10 | modulo 4 }}`, "7 42 2 2"},
		{`{{ maximum 3 9 }} {{ minimum 3 9 }} {{ 1.5 | add 1 }}`, "9 3 2.5"},
		{`{{ parseBool "true" }} {{ parseFloat "1.25" }} {{ parseUint "7" }}`, "true 1.25 7"},
		{`{{ "Hello" | toLower }} {{ "x" | toUpper }} {{ "a b" | toTitle }}`, "hello X A B"},
		{`{{ "  x " | trimSpace }}|{{ "xxay" | trimPrefix "xx" }}|{{ "ayzz" | trimSuffix "zz" }}|{{ "--a--" | trim "-" }}`, "x|ay|ay|a"},
		{`{{ "a.b.c" | replaceAll "." "/" }}`, "a/b/c"},
		{`{{ "abc123" | regexMatch "[0-9]+" }} {{ "abc123" | regexReplaceAll "[0-9]+" "#" }}`, "true abc#"},
		{`{{ "hi" | base64Encode }} {{ "aGk=" | base64Decode }} {{ "hi" | base64URLEncode }}`, "aGk= hi aGk="},
		{`{{ "hi" | sha256Hex }}`, "8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4"},
		{`{{ "hi" | md5sum }}`, "49f68a5c8493ec2c0bf489821c21fc3b"},
		{`{{ "a\nb" | indent 2 }}`, "  a\n  b"},
		{`{{ range loop 3 }}{{ . }}{{ end }} {{ range loop 2 4 }}{{ . }}{{ end }}`, "012 23"},
		{`{{ $l := split "," "a,b" }}{{ in $l "b" }} {{ "abc" | contains "b" }}`, "true true"},
		{`{{ $l := split "," "a,b" }}{{ containsAll (split "," "a,b") $l }} {{ containsAny (split "," "z,b") $l }} {{ containsNone (split "," "z") $l }} {{ containsNotAll (split "," "a,z") $l }}`, "true true true true"},
		{`{{ with splitToMap "," ":" "a:1,b:2" }}{{ .b }}{{ end }}`, "2"},
		{`{{ scratch.Set "k" "v" }}{{ scratch.Get "k" }} {{ scratch.Key "k" }} {{ scratch.MapSet "m" "b" 2 }}{{ scratch.MapSet "m" "a" 1 }}{{ scratch.MapValues "m" }}`, "v true [1 2]"},
		{`{{ define "x" }}<{{ . }}>{{ end }}{{ executeTemplate "x" "y" }}`, "<y>"},
		{`{{ mergeMap (parseJSON "{\"a\":1}") (parseJSON "{\"a\":2,\"b\":3}") | toJSON }}`, `{"a":1,"b":3}`},
		{`{{ mergeMapWithOverride (parseJSON "{\"a\":1}") (parseJSON "{\"a\":2}") | toJSON }}`, `{"a":2}`},
		{`{{ sockaddr "GetAllInterfaces | include \"name\" \"lo\" | attr \"name\"" }}`, "lo"},
	}
	for _, tc := range cases {
		got, err := renderString(t, tc.text, in)
		must.NoError(t, err, must.Sprint(tc.text))
		must.Eq(t, tc.want, got, must.Sprint(tc.text))
	}
}

func TestRender_Timestamp(t *testing.T) {
	got, err := renderString(t, `{{ timestamp }}|{{ timestamp "2006" }}|{{ timestamp "unix" }}`, &template.Input{})
	must.NoError(t, err)
	parts := strings.Split(got, "|")
	ts, err := time.Parse(time.RFC3339, parts[0])
	must.NoError(t, err)
	must.Less(t, time.Minute, time.Since(ts).Abs())
	must.Eq(t, ts.Format("2006"), parts[1])
}

func TestRender_FileMissing(t *testing.T) {
	_, err := renderString(t, `{{ file "nope" }}`, &template.Input{ReadFile: func(string) ([]byte, error) { return nil, fs.ErrNotExist }})
	must.ErrorIs(t, err, fs.ErrNotExist)
	must.ErrorContains(t, err, `file "nope"`)
}

func TestRender_MissingKey(t *testing.T) {
	vars := templatetest.NewVariables()
	vars.Put("default", "nomad/jobs/x", map[string]string{"present": "yes"})
	in := &template.Input{Variables: vars, Namespace: "default"}
	text := `{{ with nomadVar "nomad/jobs/x" }}{{ .present }}/{{ .absent }}{{ end }}|{{ $m := parseJSON "{}" }}{{ $m.gone }}`

	lenient, err := template.Parse("t", text, "{{", "}}", false)
	must.NoError(t, err)
	res, err := lenient.Render(t.Context(), in)
	must.NoError(t, err)
	must.Eq(t, "yes/<no value>|<no value>", string(res.Output))

	strict, err := template.Parse("t", `{{ with nomadVar "nomad/jobs/x" }}{{ .present }}/{{ .absent }}{{ end }}`, "{{", "}}", true)
	must.NoError(t, err)
	_, err = strict.Render(t.Context(), in)
	must.ErrorContains(t, err, `map has no entry for key "absent"`)

	strict, err = template.Parse("t", `{{ $m := parseJSON "{}" }}{{ $m.gone }}`, "{{", "}}", true)
	must.NoError(t, err)
	_, err = strict.Render(t.Context(), in)
	must.ErrorContains(t, err, `map has no entry for key "gone"`)
}

func TestRender_Delimiters(t *testing.T) {
	tmpl, err := template.Parse("t", `{{ literal }} [[ env "A" ]]`, "[[", "]]", false)
	must.NoError(t, err)
	res, err := tmpl.Render(t.Context(), &template.Input{Env: map[string]string{"A": "a"}})
	must.NoError(t, err)
	must.Eq(t, "{{ literal }} a", string(res.Output))
}

func TestRender_NomadVar(t *testing.T) {
	vars := templatetest.NewVariables()
	vars.Put("default", "nomad/jobs/app", map[string]string{"user": "u1", "pass": "p1"})
	vars.Put("other", "nomad/jobs/app", map[string]string{"user": "elsewhere"})
	vars.Put("default", "nomad/jobs/app/db", nil)
	in := &template.Input{Variables: vars, Namespace: "default"}
	text := `{{ with nomadVar "nomad/jobs/app" }}{{ .user }}:{{ .pass }}{{ end }}` +
		`|{{ range $k, $v := nomadVar "nomad/jobs/app" }}{{ $k }}={{ $v }};{{ end }}` +
		`|{{ (nomadVar "nomad/jobs/app@other").user }}` +
		`|{{ with nomadVar "nomad/jobs/none" }}has{{ else }}none{{ end }}` +
		`|{{ nomadVarExists "nomad/jobs/app" }}` +
		`|{{ range nomadVarList "nomad/jobs/app" }}{{ .Path }};{{ end }}` +
		`|{{ (nomadVar "nomad/jobs/app").Keys }}`
	tmpl, err := template.Parse("t", text, "{{", "}}", false)
	must.NoError(t, err)
	res, err := tmpl.Render(t.Context(), in)
	must.NoError(t, err)
	must.Eq(t, "u1:p1|pass=p1;user=u1;|elsewhere|none|true|nomad/jobs/app;nomad/jobs/app/db;|[pass user]", string(res.Output))
	// Each variable is read once however often the template reads it.
	must.Len(t, 4, res.Deps)
	must.Eq(t, template.VarQuery{Namespace: "default", Path: "nomad/jobs/app"}, res.Deps[0].Query)
	must.Eq(t, template.VarQuery{Namespace: "other", Path: "nomad/jobs/app"}, res.Deps[1].Query)
	must.Eq(t, template.VarQuery{Namespace: "default", Path: "nomad/jobs/none"}, res.Deps[2].Query)
	must.True(t, res.Deps[3].List)
}

func TestRender_NomadVarWithoutSource(t *testing.T) {
	_, err := renderString(t, `{{ nomadVar "x" }}`, &template.Input{})
	must.ErrorIs(t, err, template.ErrNoVariables)
}

func TestDep_WaitSeesAChange(t *testing.T) {
	vars := templatetest.NewVariables()
	vars.Put("default", "nomad/jobs/app", map[string]string{"v": "1"})
	tmpl, err := template.Parse("t", `{{ (nomadVar "nomad/jobs/app").v }}`, "{{", "}}", false)
	must.NoError(t, err)
	res, err := tmpl.Render(t.Context(), &template.Input{Variables: vars, Namespace: "default"})
	must.NoError(t, err)
	must.Len(t, 1, res.Deps)

	done := make(chan error, 1)
	go func() { done <- res.Deps[0].Wait(t.Context(), vars) }()
	vars.Put("default", "nomad/jobs/app", map[string]string{"v": "2"})
	must.NoError(t, <-done)

	res, err = tmpl.Render(t.Context(), &template.Input{Variables: vars, Namespace: "default"})
	must.NoError(t, err)
	must.Eq(t, "2", string(res.Output))
}

func TestRender_BlockingReadGivesUp(t *testing.T) {
	tmpl, err := template.Parse("t", `{{ nomadVar "x" }}`, "{{", "}}", false)
	must.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = tmpl.Render(ctx, &template.Input{Variables: templatetest.Unreachable{}})
	must.ErrorIs(t, err, context.Canceled)
}

func TestRender_Bounds(t *testing.T) {
	_, err := renderString(t, `{{ range loop 1000000 }}{{ end }}`, &template.Input{})
	must.ErrorContains(t, err, "more than the 100000 allowed")
	_, err = renderString(t, `{{ range loop 100000 }}{{ range loop 100000 }}xxxxxxxxxxxxxxxxxxxxxxxxxx{{ end }}{{ end }}`, &template.Input{})
	must.ErrorContains(t, err, "larger than 16 MiB")
}

func TestCheck(t *testing.T) {
	cases := []struct{ text, want string }{
		{`{{ key "a/b" }}`, `function "key" needs a Consul server, and Drover's agent has no "consul" block to name one`},
		{`{{ range service "redis" }}{{ .Address }}{{ end }}`, `function "service" needs a Consul server`},
		{`{{ if true }}{{ else }}{{ with secret "kv/x" }}{{ end }}{{ end }}`, `function "secret" needs a Vault server, and Drover's agent has no "vault" block`},
		{`{{ define "x" }}{{ pkiCert "p" }}{{ end }}`, `function "pkiCert" needs a Vault server`},
		{`{{ services | byTag }}`, `function "services" needs a Consul server`},
		{`{{ plugin "/bin/sh" }}`, `function "plugin" is not available`},
		{`{{ bogus }}`, `function "bogus" is not available: no such function`},
		{`{{ env "x" `, `unclosed action`},
	}
	for _, tc := range cases {
		err := template.Check(tc.text, "{{", "}}")
		must.ErrorContains(t, err, tc.want, must.Sprint(tc.text))
	}
	must.NoError(t, template.Check(`{{ env "A" }}{{ with nomadVar "x" }}{{ .k }}{{ end }}{{ $x := 1 }}{{ $x }}`, "{{", "}}"))
	must.NoError(t, template.Check(`{{ range nomadService "db" }}{{ .Port }}{{ end }}{{ nomadServices }}`, "{{", "}}"))
	must.NoError(t, template.Check(`{{ not a template }}`, "[[", "]]"))
}

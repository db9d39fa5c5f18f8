package agent

import (
	"errors"
	"reflect"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

func TestCheckUnsupported(t *testing.T) {
	body := `{
  "Job": {
    "ID": "web",
    "type": "batch",
    "Affinities": [{"LTarget": "${node.class}", "RTarget": "x", "Operand": "=", "Weight": 50}],
    "Spreads": [],
    "Migrate": {"MaxParallel": 1},
    "UI": {"Description": "shown in Nomad's UI"},
    "Vault": null,
    "ConsulToken": "",
    "Dispatched": false,
    "Meta": {"anything": "goes"},
    "Bogus": 1,
    "TaskGroups": [{
      "Name": "g",
      "Services": [{"Name": "web", "Connect": {"SidecarService": {"Port": "", "Proxy": null}}, "Checks": [{"Type": "http", "Notes": "n"}], "EnableTagOverride": false}],
      "Networks": [],
      "EphemeralDisk": {"SizeMB": 300, "Sticky": false, "Migrate": true},
      "MaxRunDuration": 10000000000,
      "Tasks": [{
        "Name": "t",
        "Config": {"command": "/bin/true", "whatever": {"nested": 1}},
        "Templates": [{"EmbeddedTmpl": "x", "VaultGrace": 1000000000, "ChangeScript": {"Command": "c", "RunOnFirstRender": true}}],
        "Resources": {"CPU": 100, "Networks": [{"MBits": 10, "ReservedPorts": [{"Label": "a", "Value": 80, "IgnoreCollision": true}]}]},
        "Artifacts": [{"GetterSource": "x", "GetterInsecure": true}]
      }]
    }]
  },
  "PolicyOverride": true,
  "PreserveCounts": false,
  "Bogus": 1
}`
	got := checkUnsupported([]byte(body), reflect.TypeFor[api.JobRegisterRequest]())
	const see = "; see website/content/docs/differences.md"
	must.Eq(t, []string{
		`Job field "TaskGroups[0].EphemeralDisk.Migrate" is not supported by Drover: a replacement allocation on another node would not get the previous one's data` + see,
		`Job field "TaskGroups[0].Services[0].Connect" is not supported by Drover: Consul Connect's sidecars and gateways would not run, nor the mesh its upstreams need` + see,
		`Job field "TaskGroups[0].Tasks[0].Resources.Networks[0].ReservedPorts[0].IgnoreCollision" is not supported by Drover: Drover never gives two allocations the same port on a node` + see,
		`Job field "TaskGroups[0].Tasks[0].Templates[0].ChangeScript.RunOnFirstRender" is not supported by Drover: the change script would not run after the first render, only after a change` + see,
	}, errorStrings(got.refused))
	must.Eq(t, []string{
		`Request field "Bogus" is not supported by Drover and was ignored`,
		`Job field "Bogus" is unknown to Drover and was ignored`,
		`Job field "Migrate" is not supported by Drover and was ignored: it holds Nomad's default, which asks for nothing a job without it does not`,
		`Job field "TaskGroups[0].Services[0].Checks[0].Notes" is not supported by Drover and was ignored: a note shown in Consul's UI only`,
		`Job field "TaskGroups[0].Tasks[0].Templates[0].VaultGrace" is not supported by Drover and was ignored: Nomad itself has ignored it since 0.12`,
		`Job field "UI" is not supported by Drover and was ignored: only Nomad's web UI shows it: a description and links`,
	}, got.warnings)
}

func errorStrings(errs []error) []string {
	out := make([]string, len(errs))
	for i, err := range errs {
		out[i] = err.Error()
	}
	return out
}

func TestFieldReport_Refuse(t *testing.T) {
	r := &fieldReport{refused: []error{errors.New("Job field \"Update\" ...")}}
	other := &structs.ValidationError{Errors: []error{errors.New("Missing job ID")}}

	var invalid *structs.ValidationError
	must.True(t, errors.As(r.refuse(nil), &invalid))
	must.Eq(t, []string{`Job field "Update" ...`}, errorStrings(invalid.Errors))

	must.True(t, errors.As(r.refuse(other), &invalid))
	must.Eq(t, []string{`Job field "Update" ...`, "Missing job ID"}, errorStrings(invalid.Errors))

	plain := errors.New("region elsewhere is not this cluster's")
	must.Eq(t, plain, r.refuse(plain))

	var none *fieldReport
	must.Nil(t, none.refuse(nil))
	must.Eq(t, error(other), none.refuse(other))
}

func TestUnsupportedFields_Shapes(t *testing.T) {
	type inner struct {
		Keep string
	}
	type embedded struct {
		Promoted int
	}
	type outer struct {
		embedded
		Renamed string           `json:"renamed_field"`
		Skipped string           `json:"-"`
		ByName  map[string]inner `json:"ByName"`
		List    []*inner
	}
	raw := map[string]any{
		"Promoted":      1.0,
		"renamed_field": "x",
		"Skipped":       "set", // json:"-" cannot be set from JSON
		"byname":        map[string]any{"a": map[string]any{"Keep": "y", "Extra": true}},
		"List":          []any{map[string]any{"keep": "z"}, map[string]any{"Other": []any{1.0}}},
		"Renamed":       "wrong spelling of a renamed field",
	}
	var got []string
	for _, f := range unsupportedFields(raw, reflect.TypeFor[outer]()) {
		got = append(got, f.path)
	}
	must.Eq(t, []string{
		`List[1].Other`,
		`Renamed`,
		`Skipped`,
		`ByName["a"].Extra`, // sorted by the key as written: "byname"
	}, got)
}

func TestIsEmptyJSON(t *testing.T) {
	for _, v := range []any{nil, false, 0.0, "", []any{}, map[string]any{}, map[string]any{"a": []any{nil, 0.0}}} {
		must.True(t, isEmptyJSON(v), must.Sprintf("%#v", v))
	}
	for _, v := range []any{true, 1.0, "x", []any{1.0}, map[string]any{"a": "b"}} {
		must.False(t, isEmptyJSON(v), must.Sprintf("%#v", v))
	}
}

func TestCheckUnsupported_BadJSON(t *testing.T) {
	got := checkUnsupported([]byte("{nope"), reflect.TypeFor[api.JobRegisterRequest]())
	must.SliceEmpty(t, got.warnings)
	must.SliceEmpty(t, got.refused)
}

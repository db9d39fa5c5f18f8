package agent

import (
	"reflect"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

func TestUnsupportedWarnings(t *testing.T) {
	body := `{
  "Job": {
    "ID": "web",
    "type": "batch",
    "Affinities": [{"LTarget": "${node.class}", "RTarget": "x", "Operand": "=", "Weight": 50}],
    "Spreads": [],
    "Update": {"Stagger": 0, "MaxParallel": 0},
    "Vault": null,
    "ConsulToken": "",
    "Dispatched": false,
    "Meta": {"anything": "goes"},
    "TaskGroups": [{
      "Name": "g",
      "Services": [{"Name": "web"}],
      "Networks": [],
      "EphemeralDisk": {"SizeMB": 300},
      "MaxRunDuration": 10000000000,
      "Tasks": [{
        "Name": "t",
        "Config": {"command": "/bin/true", "whatever": {"nested": 1}},
        "Templates": [{"EmbeddedTmpl": "x"}],
        "Resources": {"CPU": 100, "Networks": [{"MBits": 10}]},
        "Artifacts": [{"GetterSource": "x", "GetterInsecure": true}]
      }]
    }]
  },
  "PolicyOverride": true,
  "PreserveCounts": false,
  "Bogus": 1
}`
	got := unsupportedWarnings([]byte(body), reflect.TypeFor[api.JobRegisterRequest]())
	want := []string{
		`Request field "Bogus" is not supported by Drover and was ignored`,
		`Job field "Affinities" is not supported by Drover and was ignored`,
		`Job field "TaskGroups[0].EphemeralDisk" is not supported by Drover and was ignored`,
		`Job field "TaskGroups[0].Services" is not supported by Drover and was ignored`,
		`Job field "TaskGroups[0].Tasks[0].Resources.Networks" is not supported by Drover and was ignored`,
		`Job field "TaskGroups[0].Tasks[0].Templates" is not supported by Drover and was ignored`,
	}
	must.Eq(t, want, got)
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
	got := unsupportedFields(raw, reflect.TypeFor[outer]())
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

func TestUnsupportedWarnings_BadJSON(t *testing.T) {
	must.Nil(t, unsupportedWarnings([]byte("{nope"), reflect.TypeFor[api.JobRegisterRequest]()))
}

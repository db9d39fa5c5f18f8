package convert

import (
	"encoding/json"
	"testing"
	"time"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

// TestTemplateFromAPI_nomadsClient: a template block as Nomad's official
// client sends it, canonicalised with its defaults, becomes the model's
// with the same values and reads back the same.
func TestTemplateFromAPI_nomadsClient(t *testing.T) {
	in := &nomadapi.Template{
		DestPath:     new("local/app.conf"),
		EmbeddedTmpl: new(`{{ env "X" }}`),
		ChangeMode:   new("script"),
		ChangeScript: &nomadapi.ChangeScript{Command: new("/bin/true"), Args: []string{"a"}},
		Uid:          new(1000),
		Wait:         &nomadapi.WaitConfig{Min: new(time.Second), Max: new(time.Minute)},
	}
	in.Canonicalize()
	b, err := json.Marshal(in)
	must.NoError(t, err)
	var wire api.Template
	must.NoError(t, json.Unmarshal(b, &wire))

	got := templateFromAPI(&wire)
	want := &structs.Template{
		DestPath: "local/app.conf", EmbeddedTmpl: `{{ env "X" }}`,
		ChangeMode: "script", ChangeScript: &structs.ChangeScript{Command: "/bin/true", Args: []string{"a"}, Timeout: 5 * time.Second},
		Splay: 5 * time.Second, Perms: "0644", Uid: new(1000), LeftDelim: "{{", RightDelim: "}}",
		Wait: &structs.WaitConfig{Min: new(time.Second), Max: new(time.Minute)},
	}
	must.Eq(t, want, got)

	back, err := json.Marshal(templateToAPI(got))
	must.NoError(t, err)
	var nomads nomadapi.Template
	must.NoError(t, json.Unmarshal(back, &nomads))
	must.Eq(t, "script", *nomads.ChangeMode)
	must.Eq(t, 5*time.Second, *nomads.Splay)
	must.Eq(t, 1000, *nomads.Uid)
}

// TestTemplateFromAPI_leftOut: a block without splay or a script timeout
// gets Nomad's defaults; a zero written is kept.
func TestTemplateFromAPI_leftOut(t *testing.T) {
	got := templateFromAPI(&api.Template{ChangeScript: &api.ChangeScript{}})
	must.Eq(t, structs.DefaultTemplateSplay, got.Splay)
	must.Eq(t, structs.DefaultChangeScriptTimeout, got.ChangeScript.Timeout)
	got = templateFromAPI(&api.Template{Splay: new(time.Duration(0))})
	must.Eq(t, 0, got.Splay)
}

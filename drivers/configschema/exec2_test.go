package configschema_test

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers/configschema"
)

func TestParseUnveil(t *testing.T) {
	u, err := configschema.ParseUnveil("rwxc:/tmp")
	must.NoError(t, err)
	must.Eq(t, configschema.Unveil{Path: "/tmp", Read: true, Write: true, Execute: true, Create: true}, u)
	for in, want := range map[string]string{
		"/etc/ssl":      "is not <modes>:<path>",
		":/etc/ssl":     "is not <modes>:<path>",
		"rq:/etc":       `unknown mode 'q'`,
		"r:etc/ssl":     "the path must be clean and absolute",
		"r:/etc/../var": "the path must be clean and absolute",
	} {
		_, err := configschema.ParseUnveil(in)
		must.ErrorContains(t, err, want, must.Sprint(in))
	}
}

func TestExec2_Checks(t *testing.T) {
	must.SliceEmpty(t, configschema.Exec2.CheckSubmitted(map[string]any{"command": "sleep", "args": []any{"3600"}, "unveil": []any{"r:/etc/mime.types"}}))
	var got []string
	for _, p := range configschema.Exec2.CheckSubmitted(map[string]any{"command": "sleep", "unveil": []any{"r:/ok", "x/nope"}}) {
		got = append(got, p.Error())
	}
	must.Eq(t, []string{`config key "unveil": entry 1: "x/nope" is not <modes>:<path> (modes of r, w, x and c, such as "r:/etc/ssl")`}, got)
}

func TestJava_Checks(t *testing.T) {
	must.SliceEmpty(t, configschema.Java.CheckSubmitted(map[string]any{"jar_path": "local/a.jar", "jvm_options": []any{"-Xmx1g"}}))
	must.Len(t, 1, configschema.Java.CheckSubmitted(map[string]any{"class": "A", "jvm_options": []any{"Xmx1g"}}))
}

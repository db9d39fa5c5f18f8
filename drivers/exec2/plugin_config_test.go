package exec2

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers/configschema"
)

func TestParsePluginConfig(t *testing.T) {
	c, err := ParsePluginConfig(nil)
	must.NoError(t, err)
	must.Eq(t, &PluginConfig{Enabled: true, UnveilDefaults: true}, c)

	c, err = ParsePluginConfig(map[string]any{"unveil_defaults": false, "unveil_by_task": true, "unveil_paths": []any{"rx:/opt/bin", "r:/srv/certs"}})
	must.NoError(t, err)
	must.False(t, c.UnveilDefaults)
	must.True(t, c.UnveilByTask)
	must.Eq(t, []configschema.Unveil{{Path: "/opt/bin", Read: true, Execute: true}, {Path: "/srv/certs", Read: true}}, c.UnveilPaths)

	_, err = ParsePluginConfig(map[string]any{"unveil_paths": []any{"/opt/bin"}})
	must.ErrorContains(t, err, `plugin "exec2": config key "unveil_paths": entry 0: "/opt/bin" is not <modes>:<path>`)
	_, err = ParsePluginConfig(map[string]any{"unveil_all": true})
	must.ErrorContains(t, err, "unveil_all")
}

func TestDefaultUnveil_Parses(t *testing.T) {
	for _, s := range defaultUnveil {
		_, err := configschema.ParseUnveil(s)
		must.NoError(t, err)
	}
	rules := unveilRules(&PluginConfig{UnveilDefaults: true}, "/a/task", "/a/alloc", []configschema.Unveil{{Path: "/srv", Read: true}})
	must.Eq(t, len(defaultUnveil)+3, len(rules))
	must.Eq(t, "/a/task", rules[0].Path)
	must.True(t, rules[0].Create && rules[0].Execute)
	must.True(t, rules[2].IfExists)
	last := rules[len(rules)-1]
	must.Eq(t, "/srv", last.Path)
	must.False(t, last.IfExists, must.Sprint("a path the job or client names must exist"))

	must.Len(t, 2, unveilRules(&PluginConfig{}, "/a/task", "/a/alloc", nil))
}

package exec

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers/exec/isolate"
)

func TestCapabilities(t *testing.T) {
	def, err := ParsePluginConfig(nil, nil)
	must.NoError(t, err)

	caps, err := capabilities(def.AllowCaps, nil, nil)
	must.NoError(t, err)
	must.Len(t, 13, caps)

	caps, err = capabilities(def.AllowCaps, []string{"CAP_CHOWN"}, []string{"all"})
	must.NoError(t, err)
	must.Eq(t, []string{"chown"}, caps)

	caps, err = capabilities(def.AllowCaps, nil, []string{"net_bind_service", "CAP_KILL"})
	must.NoError(t, err)
	must.SliceNotContains(t, caps, "kill")
	must.SliceNotContains(t, caps, "net_bind_service")

	_, err = capabilities(def.AllowCaps, []string{"net_raw"}, nil)
	must.ErrorContains(t, err, `config key "cap_add": capability "net_raw" is not allowed by this client`)
	_, err = capabilities(def.AllowCaps, []string{"all"}, nil)
	must.ErrorContains(t, err, `is not allowed by this client`)
	_, err = capabilities(def.AllowCaps, nil, []string{"bogus"})
	must.ErrorContains(t, err, `config key "cap_drop": unknown capability "bogus"`)

	caps, err = capabilities([]string{"chown", "net_raw"}, []string{"net_raw"}, nil)
	must.NoError(t, err)
	must.Eq(t, []string{"chown", "net_raw"}, caps)
}

func TestNamespaceMode(t *testing.T) {
	private, err := namespaceMode("pid_mode", "", modePrivate)
	must.NoError(t, err)
	must.True(t, private)
	private, err = namespaceMode("pid_mode", "", modeHost)
	must.NoError(t, err)
	must.False(t, private)
	private, err = namespaceMode("pid_mode", "private", modeHost)
	must.NoError(t, err)
	must.True(t, private)
	_, err = namespaceMode("ipc_mode", "host", modePrivate)
	must.ErrorContains(t, err, `config key "ipc_mode": "host" is not allowed by this client`)
}

func TestParsePluginConfig(t *testing.T) {
	c, err := ParsePluginConfig(nil, nil)
	must.NoError(t, err)
	must.True(t, c.Enabled)
	must.Eq(t, DefaultChrootEnv, c.ChrootEnv)

	c, err = ParsePluginConfig(map[string]any{"enabled": false, "default_pid_mode": "host", "allow_caps": []any{"CAP_NET_RAW"}},
		map[string]string{"/opt/tools": "/tools"})
	must.NoError(t, err)
	must.False(t, c.Enabled)
	must.Eq(t, "host", c.DefaultPIDMode)
	must.Eq(t, []string{"net_raw"}, c.AllowCaps)
	must.Eq(t, map[string]string{"/opt/tools": "/tools"}, c.ChrootEnv)

	_, err = ParsePluginConfig(map[string]any{"default_ipc_mode": "shared", "allow_caps": []any{"nope"}, "no_pivot_root": true, "colour": "red"},
		map[string]string{"relative": "/x"})
	must.ErrorContains(t, err, `plugin "exec"`)
	must.ErrorContains(t, err, `"default_ipc_mode": must be "private" or "host", got "shared"`)
	must.ErrorContains(t, err, `unknown capability "nope"`)
	must.ErrorContains(t, err, `no_pivot_root`)
	must.ErrorContains(t, err, `colour`)
	must.ErrorContains(t, err, `chroot_env "relative" = "/x": both paths must be absolute`)
}

func TestCgroupName(t *testing.T) {
	must.Eq(t, "abc-1.2_x", isolate.CgroupName("abc-1.2_x"))
	n := isolate.CgroupName("alloc/web/1")
	must.StrHasPrefix(t, "alloc_web_1-", n)
	must.NotEq(t, n, isolate.CgroupName("alloc_web_1"))
	must.NotEq(t, "..", isolate.CgroupName(".."))
}

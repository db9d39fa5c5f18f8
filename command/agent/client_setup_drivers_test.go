package agent

import (
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers/mock"
)

// The mock driver is there when its plugin block enables it, and in dev
// mode unless its plugin block disables it.
func TestClientDrivers_Mock(t *testing.T) {
	enabled := func(v bool) map[string]*PluginConfig {
		return map[string]*PluginConfig{mock.DriverName: {Name: mock.DriverName, Config: map[string]any{"enabled": v}}}
	}
	cases := map[string]struct {
		dev     bool
		plugins map[string]*PluginConfig
		want    bool
	}{
		"default":            {},
		"enabled":            {plugins: enabled(true), want: true},
		"dev":                {dev: true, want: true},
		"dev, disabled":      {dev: true, plugins: enabled(false)},
		"not dev, disabled":  {plugins: enabled(false)},
		"dev, enabled again": {dev: true, plugins: enabled(true), want: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.DevMode = tc.dev
			cfg.Plugins = tc.plugins
			a := &Agent{config: cfg, logger: hclog.NewNullLogger()}
			catalog, err := a.clientDrivers()
			must.NoError(t, err)
			t.Cleanup(catalog.Shutdown)
			_, ok := catalog.Lookup(mock.DriverName)
			must.Eq(t, tc.want, ok)
		})
	}
}

package config

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api/unsupported"
)

// nomadHarnessConfig is the file the official api module's test harness
// (internal/testutil) writes for `nomad agent -config <file>`: JSON, in a
// file without a suffix.
const nomadHarnessConfig = `{"name":"node-1","data_dir":"/tmp/nomad1","disable_update_check":true,"log_level":"ERROR",` +
	`"ports":{"http":24646,"rpc":24647,"serf":24648},"server":{"enabled":true,"bootstrap_expect":1},` +
	`"client":{"enabled":false,"options":{"test.tighten_network_timeouts":"true"}},"vault":{"enabled":false}}`

func TestLoadConfig_JSONToldByContent(t *testing.T) {
	dir := t.TempDir()
	cfg, err := LoadConfig(DefaultConfig(), writeFile(t, dir, "nomad1234", nomadHarnessConfig))
	must.NoError(t, err)
	must.Eq(t, "node-1", cfg.NodeName)
	must.Eq(t, 24646, cfg.Ports.HTTP)
	must.True(t, cfg.Server.Enabled)
	must.False(t, cfg.Client.Enabled)
	must.Eq(t, "true", cfg.Client.Options["test.tighten_network_timeouts"])

	// And HCL stays HCL whatever the name says.
	cfg, err = LoadConfig(DefaultConfig(), writeFile(t, dir, "agent.json", "  \n  name = \"hcl-node\"\n"))
	must.NoError(t, err)
	must.Eq(t, "hcl-node", cfg.NodeName)
}

func TestLoadConfig_NomadOnlySettingsWarned(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "nomad1234", nomadHarnessConfig)
	cfg, err := LoadConfig(DefaultConfig(), path)
	must.NoError(t, err)
	must.Eq(t, []string{path + ": ignoring Nomad settings Drover has no use for: disable_update_check, vault, ports.serf (see " + unsupported.DocsPage + ")"}, cfg.Warnings)
}

func TestLoadConfig_NomadOnlySettingsInHCL(t *testing.T) {
	path := writeFile(t, t.TempDir(), "agent.hcl", `
disable_update_check = true
vault { enabled = false }
keyring "aead" { active = true }
http_api_response_headers = { "X-Frame-Options" = "DENY" }
ports { serf = 4648 }
client {
  enabled           = true
  network_speed     = 100
  meta { rack = "r1" }
}
`)
	cfg, err := LoadConfig(DefaultConfig(), path)
	must.NoError(t, err)
	must.Eq(t, map[string]string{"rack": "r1"}, cfg.Client.Meta)
	must.Len(t, 1, cfg.Warnings)
	must.StrContains(t, cfg.Warnings[0], "disable_update_check, http_api_response_headers, vault, keyring, ports.serf, client.network_speed (see ")
}

// TestLoadConfig_EachNomadOnlySetting holds every row of the table to the
// parser: each setting, in HCL as an argument and as a block and in JSON,
// is accepted and named, and none is a setting Drover reads (the parser
// would take it, and no warning would name it).
func TestLoadConfig_EachNomadOnlySetting(t *testing.T) {
	for _, s := range unsupported.AgentSettings() {
		block, name := s.Block()
		labels := strings.Repeat(`"x" `, s.Labels)
		forms := map[string]string{
			"argument": fmt.Sprintf("%s = 1", name),
			"block":    fmt.Sprintf("%s %s{ }", name, labels),
			"json":     fmt.Sprintf(`{%q: {}}`, name),
		}
		for form, src := range forms {
			t.Run(s.Path+"/"+form, func(t *testing.T) {
				if block != "" {
					if form == "json" {
						src = fmt.Sprintf(`{%q: %s}`, block, src)
					} else {
						src = fmt.Sprintf("%s {\n%s\n}\n", block, src)
					}
				}
				path := writeFile(t, t.TempDir(), "agent", src)
				cfg, err := LoadConfig(DefaultConfig(), path)
				must.NoError(t, err)
				must.Eq(t, []string{fmt.Sprintf("%s: ignoring Nomad settings Drover has no use for: %s (see %s)", path, s.Path, unsupported.DocsPage)}, cfg.Warnings)
			})
		}
	}
}

func TestLoadConfig_UnknownKeysStillRefused(t *testing.T) {
	cases := map[string]struct{ content, want string }{
		"top":       {"disable_update_checks = true\n", "a:1,1"},
		"ports":     {"ports {\n  serff = 1\n}\n", "a:2,3"},
		"client":    {"client {\n  network_interfaces = \"x\"\n}\n", "a:2,3"},
		"json port": {`{"ports": {"serff": 1}}`, "serff"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := LoadConfig(DefaultConfig(), writeFile(t, t.TempDir(), "a", tc.content))
			must.ErrorContains(t, err, tc.want)
		})
	}
}

func TestLoadConfig_EnabledFalseAsNomadMergesIt(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "c.json", `{"server": {"enabled": false}, "client": {"enabled": false}}`)

	// Under -dev both stay enabled, and the file's false is noted.
	cfg, err := LoadConfig(DevConfig(), path)
	must.NoError(t, err)
	must.True(t, cfg.Server.Enabled)
	must.True(t, cfg.Client.Enabled)
	must.Eq(t, []string{
		path + ": server.enabled = false leaves the server enabled: as in Nomad, false does not disable what -dev or an earlier file enabled",
		path + ": client.enabled = false leaves the client enabled: as in Nomad, false does not disable what -dev or an earlier file enabled",
	}, cfg.Warnings)

	// Without -dev false is the default: nothing to note.
	cfg, err = LoadConfig(DefaultConfig(), path)
	must.NoError(t, err)
	must.False(t, cfg.Server.Enabled)
	must.False(t, cfg.Client.Enabled)
	must.SliceEmpty(t, cfg.Warnings)

	// true enables.
	cfg, err = LoadConfig(DefaultConfig(), writeFile(t, dir, "s.hcl", "server { enabled = true }"))
	must.NoError(t, err)
	must.True(t, cfg.Server.Enabled)
	must.StrHasSuffix(t, "s.hcl", filepath.Base(cfg.Files[0]))
}

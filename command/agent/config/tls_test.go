package config

import (
	"testing"

	"github.com/shoenig/test/must"
)

func TestLoadConfig_TLSBlock(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "tls.hcl", `
tls {
  http                = true
  ca_file             = "/etc/drover/ca.pem"
  cert_file           = "/etc/drover/server.pem"
  key_file            = "/etc/drover/server-key.pem"
  verify_https_client = true
}
`)
	cfg, err := LoadConfig(DefaultConfig(), path)
	must.NoError(t, err)
	must.Eq(t, TLSConfig{
		HTTP:              true,
		CAFile:            "/etc/drover/ca.pem",
		CertFile:          "/etc/drover/server.pem",
		KeyFile:           "/etc/drover/server-key.pem",
		VerifyHTTPSClient: true,
	}, cfg.TLS)

	// A later file changes only what it sets.
	later := writeFile(t, dir, "later.json", `{"tls": {"verify_https_client": false}}`)
	cfg, err = LoadConfig(DefaultConfig(), path, later)
	must.NoError(t, err)
	must.False(t, cfg.TLS.VerifyHTTPSClient)
	must.True(t, cfg.TLS.HTTP)

	bad := writeFile(t, dir, "bad.hcl", "tls {\n  http = true\n  rpc_upgrade_mode = true\n}\n")
	_, err = LoadConfig(DefaultConfig(), bad)
	must.ErrorContains(t, err, "bad.hcl:3,3")
	must.ErrorContains(t, err, "rpc_upgrade_mode")
}

func TestConfigValidate_TLS(t *testing.T) {
	base := func(c *Config) { c.DataDir, c.Server.Enabled = "/d", true }
	cases := []struct {
		name string
		tls  TLSConfig
		want []string
	}{
		{"files missing", TLSConfig{HTTP: true, CAFile: "/ca.pem"},
			[]string{"tls.cert_file is required", "tls.key_file is required"}},
		{"client verification without https", TLSConfig{VerifyHTTPSClient: true},
			[]string{"tls.verify_https_client needs tls.http = true"}},
		{"hostname verification without rpc", TLSConfig{VerifyServerHostname: true},
			[]string{"tls.verify_server_hostname needs tls.rpc = true"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			base(c)
			c.TLS = tc.tls
			err := c.Validate()
			for _, want := range tc.want {
				must.ErrorContains(t, err, want)
			}
		})
	}
	t.Run("off needs nothing", func(t *testing.T) {
		c := DefaultConfig()
		base(c)
		must.NoError(t, c.Validate())
	})
	t.Run("a cluster needs encrypt or tls.rpc", func(t *testing.T) {
		c := DefaultConfig()
		base(c)
		c.Server.BootstrapExpect = 3
		must.ErrorContains(t, c.Validate(), "server.encrypt (or tls.rpc) is required")
		c.TLS = TLSConfig{RPC: true, CAFile: "/a", CertFile: "/b", KeyFile: "/c"}
		must.NoError(t, c.Validate())
	})
}

package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
)

// testEncryptKey is a valid server.encrypt, the same as the agent tests use.
const testEncryptKey = "ZHJvdmVyIHRlc3QgY2x1c3RlciBrZXksIDMyIGJ5dGU="

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	must.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

const goodConfig = `
region     = "eu"
datacenter = "dc7"
name       = "node-a"
data_dir   = "/var/lib/drover"
bind_addr  = "10.0.0.5"
log_level  = "DEBUG"

ports {
  http = 5646
  rpc  = 5647
}

addresses {
  http = "127.0.0.1"
}

advertise {
  rpc = "10.0.0.6"
}

server {
  enabled                   = true
  bootstrap_expect          = 3
  num_schedulers            = 0
  min_heartbeat_ttl         = "3s"
  max_heartbeats_per_second = 25.5
  heartbeat_grace           = "2s"
  enable_event_broker       = false
  event_buffer_size         = 500
  encrypt                   = "ZHJvdmVyIHRlc3QgY2x1c3RlciBrZXksIDMyIGJ5dGU="
  server_join {
    retry_join     = ["10.0.0.1", "10.0.0.2:4647"]
    retry_interval = "15s"
    retry_max      = 5
  }
}

client {
  enabled    = true
  servers    = ["10.0.0.1:4647"]
  node_class = "batch"
  node_pool  = "gpu"
  registration_secret = "jCLBPDVLCqOazk9EnZzjNotibq+h7RLZKOIbbBTHyk4="
  meta {
    rack = "r1"
  }
  options = {
    "driver.allowlist" = "raw_exec"
  }
}

plugin "raw_exec" {
  config {
    enabled = true
  }
}

telemetry {
  collection_interval        = "2s"
  disable_hostname           = true
  prometheus_metrics         = true
  publish_allocation_metrics = true
  publish_node_metrics       = true
  service_prefix             = "drover"
}
`

func TestLoadConfig_GoodFile(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "agent.hcl", goodConfig)

	cfg, err := LoadConfig(DefaultConfig(), path)
	must.NoError(t, err)
	must.NoError(t, cfg.Validate())

	must.Eq(t, "eu", cfg.Region)
	must.Eq(t, "dc7", cfg.Datacenter)
	must.Eq(t, "node-a", cfg.NodeName)
	must.Eq(t, "/var/lib/drover", cfg.DataDir)
	must.Eq(t, "DEBUG", cfg.LogLevel)
	must.Eq(t, Ports{HTTP: 5646, RPC: 5647}, cfg.Ports)
	must.Eq(t, "127.0.0.1:5646", cfg.HTTPBindAddr())
	must.Eq(t, "10.0.0.5:5647", cfg.RPCBindAddr())
	must.Eq(t, "10.0.0.6", cfg.AdvertiseAddrs.RPC)
	must.True(t, cfg.Server.Enabled)
	must.Eq(t, 3, cfg.Server.BootstrapExpect)
	must.NotNil(t, cfg.Server.NumSchedulers)
	must.Eq(t, 0, *cfg.Server.NumSchedulers, must.Sprint("0 is kept: a server that never schedules"))
	must.Eq(t, []string{"10.0.0.1", "10.0.0.2:4647"}, cfg.Server.RetryJoin)
	must.Eq(t, 15*time.Second, cfg.Server.RetryInterval)
	must.Eq(t, 5, cfg.Server.RetryMaxAttempts)
	must.Eq(t, 3*time.Second, cfg.Server.MinHeartbeatTTL)
	must.Eq(t, 25.5, cfg.Server.MaxHeartbeatsPerSecond)
	must.Eq(t, 2*time.Second, cfg.Server.HeartbeatGrace)
	must.False(t, cfg.Server.EnableEventBroker)
	must.Eq(t, 500, cfg.Server.EventBufferSize)
	must.Eq(t, testEncryptKey, cfg.Server.EncryptKey)
	must.Eq(t, nomadrpc.RegistrationSecret(cfg.ClusterKey()), cfg.RegistrationSecret(),
		must.Sprint("the file's registration secret is its encrypt key's"))
	must.True(t, cfg.Client.Enabled)
	must.Eq(t, []string{"10.0.0.1:4647"}, cfg.Client.Servers)
	must.Eq(t, "batch", cfg.Client.NodeClass)
	must.Eq(t, "gpu", cfg.Client.NodePool)
	must.Eq(t, map[string]string{"rack": "r1"}, cfg.Client.Meta)
	must.Eq(t, map[string]string{"driver.allowlist": "raw_exec"}, cfg.Client.Options)
	must.Eq(t, map[string]any{"enabled": true}, cfg.Plugins["raw_exec"].Config)
	must.Eq(t, 2*time.Second, cfg.Telemetry.CollectionInterval)
	must.True(t, cfg.Telemetry.DisableHostname)
	must.True(t, cfg.Telemetry.PrometheusMetrics)
	must.True(t, cfg.Telemetry.PublishAllocationMetrics)
	must.True(t, cfg.Telemetry.PublishNodeMetrics)
	must.Eq(t, "drover", cfg.Telemetry.ServicePrefix)
	must.Eq(t, []string{path}, cfg.Files)
}

func TestLoadConfig_LegacyServerJoin(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "agent.hcl", `
data_dir = "/tmp/x"
server {
  enabled    = true
  retry_join = ["a", "b"]
  start_join = ["c"]
}`)
	cfg, err := LoadConfig(DefaultConfig(), path)
	must.NoError(t, err)
	must.Eq(t, []string{"a", "b"}, cfg.Server.RetryJoin)
	must.Eq(t, []string{"c"}, cfg.Server.StartJoin)
}

func TestLoadConfig_JSON(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "agent.json", `{
  "data_dir": "/tmp/j",
  "server": {"enabled": true},
  "client": {"enabled": true, "meta": {"k": "v"}},
  "plugin": {"raw_exec": {"config": {"enabled": true}}},
  "telemetry": {"collection_interval": "5s"}
}`)
	cfg, err := LoadConfig(DefaultConfig(), path)
	must.NoError(t, err)
	must.Eq(t, "/tmp/j", cfg.DataDir)
	must.True(t, cfg.Server.Enabled)
	must.Eq(t, map[string]string{"k": "v"}, cfg.Client.Meta)
	must.Eq(t, map[string]any{"enabled": true}, cfg.Plugins["raw_exec"].Config)
	must.Eq(t, 5*time.Second, cfg.Telemetry.CollectionInterval)
}

func TestLoadConfig_DirectoryMergesInLexicalOrder(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "10-base.hcl", `
region   = "r1"
data_dir = "/data"
server { enabled = true }
client {
  enabled = true
  meta {
    a = "1"
    b = "1"
  }
}`)
	writeFile(t, dir, "20-override.json", `{"region": "r2", "client": {"meta": {"b": "2"}}}`)
	writeFile(t, dir, "30-last.hcl", `
server { enabled = false }
telemetry { collection_interval = "3s" }`)
	writeFile(t, dir, "notes.txt", `this is not configuration`)
	must.NoError(t, os.Mkdir(filepath.Join(dir, "sub.hcl"), 0o700))

	cfg, err := LoadConfig(DefaultConfig(), dir)
	must.NoError(t, err)
	must.Eq(t, "r2", cfg.Region)
	must.Eq(t, "/data", cfg.DataDir)
	// As in Nomad, a later false does not disable the server; it is noted.
	must.True(t, cfg.Server.Enabled)
	must.Eq(t, []string{filepath.Join(dir, "30-last.hcl") + ": server.enabled = false leaves the server enabled: as in Nomad, false does not disable what -dev or an earlier file enabled"}, cfg.Warnings)
	must.True(t, cfg.Client.Enabled)
	must.Eq(t, map[string]string{"a": "1", "b": "2"}, cfg.Client.Meta)
	must.Eq(t, 3*time.Second, cfg.Telemetry.CollectionInterval)
	must.Len(t, 3, cfg.Files)
	must.StrHasSuffix(t, "30-last.hcl", cfg.Files[2])
}

func TestLoadConfig_Errors(t *testing.T) {
	cases := []struct {
		name    string
		file    string
		content string
		want    []string
	}{
		{
			name:    "unknown top-level key",
			file:    "a.hcl",
			content: "data_dir = \"/x\"\nbogus = 1\n",
			want:    []string{"a.hcl:2,1", "bogus"},
		},
		{
			name:    "unknown key in block",
			file:    "b.hcl",
			content: "server {\n  enabled = true\n  num_schedulerz = 2\n}\n",
			want:    []string{"b.hcl:3,3", "num_schedulerz"},
		},
		{
			name:    "unknown block",
			file:    "c.hcl",
			content: "vaults {\n  enabled = true\n}\n",
			want:    []string{"c.hcl:1,1", "vaults"},
		},
		{
			name:    "wrong type",
			file:    "d.hcl",
			content: "server {\n  enabled = \"maybe\"\n}\n",
			want:    []string{"d.hcl:2,", "bool is required"},
		},
		{
			name:    "bad duration",
			file:    "e.hcl",
			content: "telemetry {\n  collection_interval = \"ten seconds\"\n}\n",
			want:    []string{"e.hcl:2,25", "collection_interval", "ten seconds"},
		},
		{
			name:    "bad heartbeat duration",
			file:    "e2.hcl",
			content: "server {\n  min_heartbeat_ttl = \"soon\"\n}\n",
			want:    []string{"e2.hcl:2,23", "min_heartbeat_ttl", "soon"},
		},
		{
			name:    "bad syntax",
			file:    "f.hcl",
			content: "server {\n  enabled = \n",
			want:    []string{"f.hcl:"},
		},
		{
			name:    "unknown key in client",
			file:    "g.hcl",
			content: "client {\n  enabled = true\n  cpu_total = 4\n}\n",
			want:    []string{"g.hcl:3,3", "cpu_total"},
		},
		{
			name:    "unknown key in json",
			file:    "h.json",
			content: "{\n  \"server\": {\"enabled\": true, \"foo\": 1}\n}\n",
			want:    []string{"h.json:2,", "foo"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), tc.file, tc.content)
			_, err := LoadConfig(DefaultConfig(), path)
			must.Error(t, err)
			for _, want := range tc.want {
				must.StrContains(t, err.Error(), want)
			}
		})
	}
}

func TestLoadConfig_MissingPath(t *testing.T) {
	_, err := LoadConfig(DefaultConfig(), filepath.Join(t.TempDir(), "nope.hcl"))
	must.ErrorContains(t, err, "nope.hcl")
}

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*Config)
		want   string
	}{
		{"no server or client", func(c *Config) { c.DataDir = "/d" }, "at least one of server or client"},
		{"no data dir", func(c *Config) { c.Server.Enabled = true }, "data_dir is required"},
		{"port out of range", func(c *Config) { c.DataDir, c.Server.Enabled, c.Ports.HTTP = "/d", true, 70000 }, "ports.http must be between 0 and 65535"},
		{"negative num_schedulers", func(c *Config) { c.DataDir, c.Server.Enabled, c.Server.NumSchedulers = "/d", true, new(-1) }, "server.num_schedulers must be 0 or more, not -1"},
		{"negative bootstrap", func(c *Config) { c.DataDir, c.Server.Enabled, c.Server.BootstrapExpect = "/d", true, -1 }, "bootstrap_expect must be 0 or more"},
		{"negative heartbeat ttl", func(c *Config) { c.DataDir, c.Server.Enabled, c.Server.MinHeartbeatTTL = "/d", true, -time.Second }, "min_heartbeat_ttl must not be negative"},
		{"negative heartbeat grace", func(c *Config) { c.DataDir, c.Server.Enabled, c.Server.HeartbeatGrace = "/d", true, -time.Second }, "heartbeat_grace must not be negative"},
		{"empty event buffer", func(c *Config) { c.DataDir, c.Server.Enabled, c.Server.EventBufferSize = "/d", true, 0 }, "server.event_buffer_size must be at least 1, not 0"},
		{"negative heartbeat rate", func(c *Config) { c.DataDir, c.Server.Enabled, c.Server.MaxHeartbeatsPerSecond = "/d", true, -1 }, "max_heartbeats_per_second must not be negative"},
		{"bad log level", func(c *Config) { c.DataDir, c.Server.Enabled, c.LogLevel = "/d", true, "LOUD" }, "log_level"},
		{"bad bind", func(c *Config) { c.DataDir, c.Server.Enabled, c.BindAddr = "/d", true, "not-an-ip" }, "bind_addr"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.mutate(c)
			must.ErrorContains(t, c.Validate(), tc.want)
		})
	}

	t.Run("every problem listed", func(t *testing.T) {
		c := DefaultConfig()
		c.Ports.RPC = -1
		err := c.Validate()
		must.Error(t, err)
		for _, want := range []string{"data_dir", "at least one of server or client", "ports.rpc"} {
			must.StrContains(t, err.Error(), want)
		}
	})
}

func TestDevConfig(t *testing.T) {
	c := DevConfig()
	must.NoError(t, c.Validate())
	must.True(t, c.Server.Enabled)
	must.True(t, c.Client.Enabled)
	must.Eq(t, "127.0.0.1:4646", c.HTTPBindAddr())
	must.Eq(t, "127.0.0.1:4647", c.RPCBindAddr())
	must.Eq(t, "global", c.Region)
	must.Eq(t, "dc1", c.Datacenter)
	must.Eq(t, true, c.Plugins["raw_exec"].Config["enabled"])
	must.Eq(t, "", c.DataDir)
	must.True(t, c.Telemetry.PrometheusMetrics)
	must.True(t, c.Telemetry.PublishNodeMetrics)
	must.False(t, c.Telemetry.PublishAllocationMetrics, must.Sprint("per-task series cost memory; opt in"))
}

func TestConfigCopyIsDeep(t *testing.T) {
	c := DevConfig()
	c.Client.Meta["a"] = "1"
	cp := c.Copy()
	cp.Client.Meta["a"] = "2"
	cp.Plugins["raw_exec"].Config["enabled"] = false
	must.Eq(t, "1", c.Client.Meta["a"])
	must.Eq(t, true, c.Plugins["raw_exec"].Config["enabled"])
	must.True(t, strings.HasPrefix(cp.HTTPBindAddr(), "127.0.0.1"))
}

func TestConfig_HostnameLeftOutOfMetricNamesByDefault(t *testing.T) {
	must.True(t, DefaultConfig().Telemetry.DisableHostname)
	must.True(t, DevConfig().Telemetry.DisableHostname)

	path := writeFile(t, t.TempDir(), "agent.hcl", "telemetry {\n  disable_hostname = false\n}\n")
	cfg, err := LoadConfig(DefaultConfig(), path)
	must.NoError(t, err)
	must.False(t, cfg.Telemetry.DisableHostname)
}

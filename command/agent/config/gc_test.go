package config

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

// TestLoadConfig_GC reads Nomad's garbage collection settings of the
// server and client blocks.
func TestLoadConfig_GC(t *testing.T) {
	path := writeFile(t, t.TempDir(), "agent.hcl", `
data_dir = "/tmp/x"
server {
  enabled                 = true
  job_gc_interval         = "30s"
  job_gc_threshold        = "1h"
  eval_gc_threshold       = "10m"
  batch_eval_gc_threshold = "2h"
  node_gc_threshold       = "12h"
}
client {
  enabled                  = true
  gc_interval              = "10s"
  gc_max_allocs            = 7
  gc_disk_usage_threshold  = 90
  gc_inode_usage_threshold = 85.5
  gc_parallel_destroys     = 3
}`)
	cfg, err := LoadConfig(DefaultConfig(), path)
	must.NoError(t, err)
	must.Eq(t, 30*time.Second, cfg.Server.JobGCInterval)
	must.Eq(t, time.Hour, cfg.Server.JobGCThreshold)
	must.Eq(t, 10*time.Minute, cfg.Server.EvalGCThreshold)
	must.Eq(t, 2*time.Hour, cfg.Server.BatchEvalGCThreshold)
	must.Eq(t, 12*time.Hour, cfg.Server.NodeGCThreshold)
	must.Eq(t, 10*time.Second, cfg.Client.GCInterval)
	must.Eq(t, 7, cfg.Client.GCMaxAllocs)
	must.Eq(t, 90.0, cfg.Client.GCDiskUsageThreshold)
	must.Eq(t, 85.5, cfg.Client.GCInodeUsageThreshold)
	must.Eq(t, 3, cfg.Client.GCParallelDestroys)
}

// TestLoadConfig_GCRefusals: a bad duration names its key and place; a
// negative duration or a percentage out of range is refused.
func TestLoadConfig_GCRefusals(t *testing.T) {
	path := writeFile(t, t.TempDir(), "agent.hcl", `
data_dir = "/tmp/x"
server {
  enabled          = true
  job_gc_threshold = "soon"
}`)
	_, err := LoadConfig(DefaultConfig(), path)
	must.ErrorContains(t, err, `job_gc_threshold = "soon" is not a duration`)

	for name, mutate := range map[string]func(*Config){
		"job_gc_interval must not be negative":            func(c *Config) { c.Server.JobGCInterval = -time.Second },
		"client.gc_disk_usage_threshold is a percentage":  func(c *Config) { c.Client.GCDiskUsageThreshold = 101 },
		"client.gc_inode_usage_threshold is a percentage": func(c *Config) { c.Client.GCInodeUsageThreshold = -1 },
		"client.gc_max_allocs and":                        func(c *Config) { c.Client.GCMaxAllocs = -1 },
	} {
		cfg := DefaultConfig()
		cfg.DataDir, cfg.Server.Enabled = "/d", true
		mutate(cfg)
		must.ErrorContains(t, cfg.Validate(), name)
	}
}

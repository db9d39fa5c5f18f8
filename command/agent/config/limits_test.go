package config

import (
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/jobspec2"
	"github.com/drover-io/drover/structs"
)

func TestLimits_defaults(t *testing.T) {
	l := DefaultConfig().Limits
	must.Eq(t, LimitsConfig{
		HTTPMaxConnsPerClient: 100,
		HTTPReadHeaderTimeout: 10 * time.Second,
		HTTPReadTimeout:       time.Minute,
		HTTPWriteTimeout:      2 * time.Minute,
		HTTPIdleTimeout:       2 * time.Minute,
		HTTPSHandshakeTimeout: 5 * time.Second,
		HTTPMaxBodySize:       1 << 20,
		RPCMaxConnsPerClient:  100,
		RPCHandshakeTimeout:   5 * time.Second,
		JobMaxCount:           50_000,
		JobMaxGroups:          1_000,
		JobMaxTasksPerGroup:   100,
		JobMaxSize:            4 << 20,
		HCLMaxSize:            1 << 20,
		HCLMaxDepth:           100,
		HCLMaxEvalWork:        16_000_000,
		HCLEvalTimeout:        10 * time.Second,
	}, l)
	must.Eq(t, structs.DefaultJobLimits(), l.JobLimits())
	must.Eq(t, jobspec2.DefaultLimits(), l.HCLLimits())
	must.NoError(t, DevConfig().Validate())
}

func TestLimits_parse(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "limits.hcl", `
limits {
  http_max_conns_per_client = 0
  http_read_header_timeout  = "2s"
  http_read_timeout         = "5s"
  http_write_timeout        = "7s"
  http_idle_timeout         = "11s"
  http_max_body_size        = "64KiB"
  https_handshake_timeout   = "1s"
  rpc_max_conns_per_client  = 0
  rpc_handshake_timeout     = "3s"
  job_max_count             = 10
  job_max_groups            = 3
  job_max_tasks_per_group   = 4
  job_max_size              = 65536
  hcl_max_size              = "1MB"
  hcl_max_depth             = 20
  hcl_max_eval_work         = 1000
  hcl_eval_timeout          = "1s"
}
`)
	cfg, err := LoadConfig(DevConfig(), path)
	must.NoError(t, err)
	must.Eq(t, LimitsConfig{
		HTTPMaxConnsPerClient: 0,
		HTTPReadHeaderTimeout: 2 * time.Second,
		HTTPReadTimeout:       5 * time.Second,
		HTTPWriteTimeout:      7 * time.Second,
		HTTPIdleTimeout:       11 * time.Second,
		HTTPMaxBodySize:       64 << 10,
		HTTPSHandshakeTimeout: time.Second,
		RPCMaxConnsPerClient:  0,
		RPCHandshakeTimeout:   3 * time.Second,
		JobMaxCount:           10,
		JobMaxGroups:          3,
		JobMaxTasksPerGroup:   4,
		JobMaxSize:            65536,
		HCLMaxSize:            1_000_000,
		HCLMaxDepth:           20,
		HCLMaxEvalWork:        1000,
		HCLEvalTimeout:        time.Second,
	}, cfg.Limits)
	must.NoError(t, cfg.Validate())
}

func TestLimits_JSONAndNomadSpelling(t *testing.T) {
	dir := t.TempDir()
	// Nomad's server.job_max_count sets the same limit; the limits block
	// wins when both are set.
	nomadStyle := writeFile(t, dir, "a.hcl", "server {\n  job_max_count = 7\n}\n")
	cfg, err := LoadConfig(DevConfig(), nomadStyle)
	must.NoError(t, err)
	must.Eq(t, 7, cfg.Limits.JobMaxCount)

	both := writeFile(t, dir, "b.json", `{"server": {"job_max_count": 7}, "limits": {"job_max_count": 9, "job_max_size": "2MiB"}}`)
	cfg, err = LoadConfig(DevConfig(), both)
	must.NoError(t, err)
	must.Eq(t, 9, cfg.Limits.JobMaxCount)
	must.Eq(t, int64(2<<20), cfg.Limits.JobMaxSize)
}

func TestLimits_errors(t *testing.T) {
	cases := map[string]string{
		`http_max_body_size = "4 parsecs"`: `limits.hcl:1,31: http_max_body_size: "4 parsecs" is not a size`,
		`job_max_size = 1.5`:               "job_max_size: not a whole number of bytes",
		`job_max_size = true`:              "job_max_size: not a size",
		`hcl_eval_timeout = "soon"`:        `hcl_eval_timeout = "soon" is not a duration`,
		`unknown_limit = 1`:                `An argument named "unknown_limit" is not expected here`,
	}
	for body, want := range cases {
		dir := t.TempDir()
		path := writeFile(t, dir, "limits.hcl", "limits { "+body+" }\n")
		_, err := LoadConfig(DevConfig(), path)
		must.ErrorContains(t, err, want, must.Sprint(body))
	}

	cfg := DevConfig()
	cfg.Limits.HTTPMaxConnsPerClient = -1
	cfg.Limits.HTTPWriteTimeout = -time.Second
	cfg.Limits.HTTPSHandshakeTimeout = -time.Second
	cfg.Limits.JobMaxCount = 0
	cfg.Limits.JobMaxSize = 2 << 30
	cfg.Limits.HCLEvalTimeout = 0
	cfg.Limits.RPCMaxConnsPerClient = -2
	cfg.Limits.RPCHandshakeTimeout = 0
	err := cfg.Validate()
	for _, want := range []string{
		"limits.http_max_conns_per_client must be at least 0, not -1",
		"limits.http_write_timeout must not be negative, not -1s",
		"limits.https_handshake_timeout must not be negative, not -1s",
		"limits.job_max_count must be at least 1, not 0",
		"limits.job_max_size must be between 1 byte and 1GiB, not 2147483648 bytes",
		"limits.hcl_eval_timeout must be positive, not 0s",
		"limits.rpc_max_conns_per_client must be at least 0, not -2",
		"limits.rpc_handshake_timeout must be positive, not 0s",
	} {
		must.ErrorContains(t, err, want)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "100": 100, "100B": 100, "4KiB": 4096, "4 KiB": 4096, "1MiB": 1 << 20,
		"2GiB": 2 << 30, "1KB": 1000, "3MB": 3_000_000, "1GB": 1_000_000_000,
	} {
		got, err := parseSize(in)
		must.NoError(t, err, must.Sprint(in))
		must.Eq(t, want, got, must.Sprint(in))
	}
	for _, in := range []string{"", "MiB", "-1", "1.5MiB", "1TiB", "9223372036854775807GiB"} {
		_, err := parseSize(in)
		must.Error(t, err, must.Sprint(in))
		must.True(t, strings.Contains(err.Error(), in) || in == "", must.Sprint(err))
	}
}

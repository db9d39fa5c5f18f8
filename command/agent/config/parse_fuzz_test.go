package config

import (
	"testing"

	"github.com/shoenig/test/must"
)

// FuzzParseConfig parses arbitrary bytes as an agent configuration file,
// HCL or JSON, applies it over the defaults and validates the result, as
// the agent does at start. None of it may panic, however broken the file.
// Plain `go test` runs the seeds below and those in
// testdata/fuzz/FuzzParseConfig.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(goodConfig), false)
	f.Add([]byte("limits {\n  job_max_count = 10\n  job_max_size = \"4MiB\"\n  hcl_eval_timeout = \"1s\"\n}\nserver { job_max_count = 3 }\n"), false)
	f.Add([]byte(`{"region": "eu", "server": {"enabled": true, "server_join": {"retry_join": ["a"]}}, "limits": {"http_max_body_size": 1024}}`), true)
	f.Add([]byte(`{"plugin": {"raw_exec": {"config": {"enabled": true, "nested": [[{"a": 1}]]}}}}`), true)
	f.Add([]byte("client {\n  meta = { a = \"b\" }\n  options { x = \"y\" }\n}\n"), false)
	f.Add([]byte("telemetry { collection_interval = \"-1s\" }\nports { http = 99999 }\n"), false)
	f.Add([]byte("tls {\n  http = true\n  ca_file = \"/nope\"\n}\n"), false)
	f.Add([]byte("plugin \"x\" { config { a = [[[[[[1]]]]]] } }"), false)
	f.Add([]byte(`[[[[[[[[[[`), true)

	f.Fuzz(func(t *testing.T, src []byte, isJSON bool) {
		name := "fuzz.hcl"
		if isJSON {
			name = "fuzz.json"
		}
		fc, err := parseConfig(src, name)
		if err != nil {
			must.NotEq(t, "", err.Error())
			return
		}
		cfg := DefaultConfig()
		if err := fc.applyTo(cfg); err != nil {
			must.NotEq(t, "", err.Error())
			return
		}
		_ = cfg.Validate()
		_ = cfg.Copy()
	})
}

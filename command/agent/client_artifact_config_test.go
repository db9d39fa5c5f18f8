package agent

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/allocrunner/taskrunner"
)

func TestClientArtifactConfig(t *testing.T) {
	// Nomad's defaults when nothing is set.
	must.Eq(t, taskrunner.ArtifactConfig{DecompressionSizeLimit: 100_000_000_000, DecompressionFileCountLimit: 4096},
		DefaultConfig().Client.Artifact)

	cases := []struct {
		name    string
		content string
		want    taskrunner.ArtifactConfig
	}{
		{"both", `client {
  artifact {
    decompression_size_limit       = "2GiB"
    decompression_file_count_limit = 100
  }
}`, taskrunner.ArtifactConfig{DecompressionSizeLimit: 2 << 30, DecompressionFileCountLimit: 100}},
		{"zero is no limit", `client {
  artifact {
    decompression_size_limit       = "0"
    decompression_file_count_limit = 0
  }
}`, taskrunner.ArtifactConfig{}},
		{"one of them", `client {
  artifact {
    decompression_size_limit = "500 MB"
  }
}`, taskrunner.ArtifactConfig{DecompressionSizeLimit: 500_000_000, DecompressionFileCountLimit: 4096}},
		{"json", `{"client": {"artifact": {"decompression_size_limit": "1kb"}}}`,
			taskrunner.ArtifactConfig{DecompressionSizeLimit: 1000, DecompressionFileCountLimit: 4096}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			name := "a.hcl"
			if tc.content[0] == '{' {
				name = "a.json"
			}
			cfg, err := LoadConfig(DefaultConfig(), writeFile(t, t.TempDir(), name, tc.content))
			must.NoError(t, err)
			must.Eq(t, tc.want, cfg.Client.Artifact)
		})
	}
}

func TestClientArtifactConfig_Errors(t *testing.T) {
	cases := map[string]string{
		`client {
  artifact {
    decompression_size_limit = "lots"
  }
}`: `a.hcl:3,32: client artifact decompression_size_limit = "lots": not a size: write a number of bytes with an optional unit (B, kB, MB, GB, TB, KiB, MiB, GiB, TiB), such as "100GB"`,
		`client {
  artifact {
    decompression_file_count_limit = -1
  }
}`: `client artifact decompression_file_count_limit = -1: must be 0 (no limit) or more`,
		`client {
  artifact {
    decompression_size_limit = "10000000TB"
  }
}`: `a.hcl:3,32: client artifact decompression_size_limit = "10000000TB": too large: the most is 9223372036854775807 bytes`,
		`client {
  artifact {
    http_max_size = "1GB"
  }
}`: `http_max_size`,
	}
	for content, want := range cases {
		_, err := LoadConfig(DefaultConfig(), writeFile(t, t.TempDir(), "a.hcl", content))
		must.ErrorContains(t, err, want)
	}
}

func TestParseByteSize(t *testing.T) {
	good := map[string]int64{
		"0": 0, "1024": 1024, "100GB": 100_000_000_000, "100gb": 100_000_000_000, "1.5 MB": 1_500_000,
		"10B": 10, "4k": 4000, "2KiB": 2048, "3MiB": 3 << 20, "1GiB": 1 << 30, "1TiB": 1 << 40, " 7 tb ": 7_000_000_000_000,
	}
	for s, want := range good {
		got, err := parseByteSize(s)
		must.NoError(t, err, must.Sprintf("%q", s))
		must.Eq(t, want, got, must.Sprintf("%q", s))
	}
	for _, s := range []string{"", "GB", "-1GB", "1.2.3MB", "10 parsecs", "1e3"} {
		_, err := parseByteSize(s)
		must.Error(t, err, must.Sprintf("%q", s))
	}
}

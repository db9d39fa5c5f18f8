package config

import (
	"net/netip"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/allocrunner/taskrunner"
	"github.com/drover-io/drover/internal/netguard"
)

func TestClientArtifactConfig(t *testing.T) {
	// Nomad's defaults when nothing is set, and the default address
	// policy.
	def := netguard.DefaultPolicy()
	must.Eq(t, *taskrunner.DefaultArtifactConfig(), DefaultConfig().Client.Artifact)
	must.Eq(t, taskrunner.ArtifactConfig{DecompressionSizeLimit: 100_000_000_000, DecompressionFileCountLimit: 4096, Addresses: def,
		HTTPReadTimeout: 30 * time.Minute, HTTPMaxSize: 100_000_000_000, GitTimeout: 30 * time.Minute, S3Timeout: 30 * time.Minute},
		DefaultConfig().Client.Artifact)
	// d is the default configuration with f applied.
	d := func(f func(*taskrunner.ArtifactConfig)) taskrunner.ArtifactConfig {
		c := *taskrunner.DefaultArtifactConfig()
		f(&c)
		return c
	}

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
}`, d(func(c *taskrunner.ArtifactConfig) {
			c.DecompressionSizeLimit, c.DecompressionFileCountLimit = 2<<30, 100
		})},
		{"zero is no limit", `client {
  artifact {
    decompression_size_limit       = "0"
    decompression_file_count_limit = 0
  }
}`, d(func(c *taskrunner.ArtifactConfig) { c.DecompressionSizeLimit, c.DecompressionFileCountLimit = 0, 0 })},
		{"one of them", `client {
  artifact {
    decompression_size_limit = "500 MB"
  }
}`, d(func(c *taskrunner.ArtifactConfig) { c.DecompressionSizeLimit = 500_000_000 })},
		{"json", `{"client": {"artifact": {"decompression_size_limit": "1kb"}}}`,
			d(func(c *taskrunner.ArtifactConfig) { c.DecompressionSizeLimit = 1000 })},
		{"nomad's fetch settings", `client {
  artifact {
    http_read_timeout         = "5m"
    http_max_size             = "2GiB"
    git_timeout               = "90s"
    s3_timeout                = "1m"
    set_environment_variables = "SSH_AUTH_SOCK, HTTPS_PROXY"
  }
}`, d(func(c *taskrunner.ArtifactConfig) {
			c.HTTPReadTimeout, c.HTTPMaxSize, c.GitTimeout, c.S3Timeout = 5*time.Minute, 2<<30, 90*time.Second, time.Minute
			c.SetEnvironmentVariables = []string{"SSH_AUTH_SOCK", "HTTPS_PROXY"}
		})},
		{"private refused but one store", `client {
  artifact {
    address_denylist  = ["loopback", "link_local", "metadata", "unspecified", "multicast", "private"]
    address_allowlist = ["10.20.0.5", "fd00:20::/64"]
  }
}`, d(func(c *taskrunner.ArtifactConfig) {
			c.Addresses = mustPolicy(t, []string{"loopback", "link_local", "metadata", "unspecified", "multicast", "private"}, []string{"10.20.0.5", "fd00:20::/64"})
		})},
		{"an allowlist keeps the default denylist", `client {
  artifact {
    address_allowlist = ["127.0.0.1"]
  }
}`, d(func(c *taskrunner.ArtifactConfig) {
			c.Addresses = mustPolicy(t, netguard.DefaultDenylist, []string{"127.0.0.1"})
		})},
		{"an empty denylist refuses nothing", `client {
  artifact {
    address_denylist = []
  }
}`, d(func(c *taskrunner.ArtifactConfig) { c.Addresses = mustPolicy(t, []string{}, nil) })},
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
    http_max_size = "1 parsec"
  }
}`: `a.hcl:3,21: client artifact http_max_size = "1 parsec": not a size`,
		`client {
  artifact {
    git_timeout = "soon"
  }
}`: `a.hcl:3,19: git_timeout = "soon" is not a duration`,
		`client {
  artifact {
    disable_filesystem_isolation = true
  }
}`: `a.hcl:3,36: client artifact disable_filesystem_isolation is not supported: Drover runs no artifact sandbox process`,
		`client {
  artifact {
    hg_timeout = "1m"
  }
}`: `a.hcl:3,18: client artifact hg_timeout is not supported: Drover fetches no hg (Mercurial) sources`,
		`client {
  artifact {
    gcs_timeout = "1m"
  }
}`: `a.hcl:3,19: client artifact gcs_timeout is not supported: Drover fetches no gcs sources`,
		`client {
  artifact {
    address_denylist = ["internal"]
  }
}`: `client artifact address_denylist/address_allowlist: denylist entry: "internal" is not a class of address (loopback, link_local, metadata, unspecified, private, multicast), nor a range such as 10.0.0.0/8`,
		`client {
  artifact {
    address_allowlist = ["artifacts.internal"]
  }
}`: `client artifact address_denylist/address_allowlist: allowlist entry "artifacts.internal": not an IP address or a range in CIDR notation`,
	}
	for content, want := range cases {
		_, err := LoadConfig(DefaultConfig(), writeFile(t, t.TempDir(), "a.hcl", content))
		must.ErrorContains(t, err, want)
	}
}

func mustPolicy(t *testing.T, deny, allow []string) *netguard.Policy {
	t.Helper()
	p, err := netguard.NewPolicy(deny, allow)
	must.NoError(t, err)
	return p
}

// Dev mode fetches from the machine's own loopback services, by an
// explicit allowlist over the default denylist; a file may replace it.
func TestClientArtifactConfig_DevMode(t *testing.T) {
	dev := DevConfig().Client.Artifact.Addresses
	must.Eq(t, netguard.DefaultDenylist, dev.Denylist())
	must.Eq(t, []string{"127.0.0.0/8", "::1/128"}, dev.Allowlist())
	must.NoError(t, dev.Check(netip.MustParseAddrPort("127.0.0.1:8000")))
	must.NoError(t, dev.Check(netip.MustParseAddrPort("[::1]:8000")))
	must.Error(t, dev.Check(netip.MustParseAddrPort("169.254.169.254:80")))
	must.Error(t, DefaultConfig().Client.Artifact.Addresses.Check(netip.MustParseAddrPort("127.0.0.1:8000")))

	cfg, err := LoadConfig(DevConfig(), writeFile(t, t.TempDir(), "a.hcl", `client {
  artifact {
    address_allowlist = []
  }
}`))
	must.NoError(t, err)
	must.Error(t, cfg.Client.Artifact.Addresses.Check(netip.MustParseAddrPort("127.0.0.1:8000")))
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

package config

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"

	"github.com/drover-io/drover/client/allocrunner/taskrunner"
	"github.com/drover-io/drover/internal/netguard"
)

// fileArtifact is the client block's artifact block, Nomad's names for
// the limits, timeouts and git's environment, and Drover's for the
// address policy, which Nomad has not:
//
//	client {
//	  artifact {
//	    decompression_size_limit       = "100GB"
//	    decompression_file_count_limit = 4096
//	    http_read_timeout              = "30m"
//	    http_max_size                  = "100GB"
//	    git_timeout                    = "30m"
//	    s3_timeout                     = "30m"
//	    set_environment_variables      = "SSH_AUTH_SOCK,HTTPS_PROXY"
//	    address_denylist  = ["loopback", "link_local", "metadata", "unspecified", "multicast"]
//	    address_allowlist = []
//	  }
//	}
//
// Nomad's hg_timeout, gcs_timeout, disable_filesystem_isolation and
// filesystem_isolation_extra_paths are refused by name: Drover fetches no
// hg or gcs sources and runs no sandbox process to configure.
type fileArtifact struct {
	DecompressionSizeLimit      *hcl.Attribute `hcl:"decompression_size_limit,optional"`
	DecompressionFileCountLimit *int           `hcl:"decompression_file_count_limit,optional"`
	HTTPReadTimeout             *hcl.Attribute `hcl:"http_read_timeout,optional"`
	HTTPMaxSize                 *hcl.Attribute `hcl:"http_max_size,optional"`
	GitTimeout                  *hcl.Attribute `hcl:"git_timeout,optional"`
	S3Timeout                   *hcl.Attribute `hcl:"s3_timeout,optional"`
	SetEnvironmentVariables     *string        `hcl:"set_environment_variables,optional"`
	AddressDenylist             *[]string      `hcl:"address_denylist,optional"`
	AddressAllowlist            *[]string      `hcl:"address_allowlist,optional"`

	HgTimeout                     *hcl.Attribute `hcl:"hg_timeout,optional"`
	GCSTimeout                    *hcl.Attribute `hcl:"gcs_timeout,optional"`
	DisableFilesystemIsolation    *hcl.Attribute `hcl:"disable_filesystem_isolation,optional"`
	FilesystemIsolationExtraPaths *hcl.Attribute `hcl:"filesystem_isolation_extra_paths,optional"`
}

// refusedArtifactKeys say why Nomad's other artifact settings have no
// place in Drover.
func (fa *fileArtifact) refusedKeys() error {
	const isolation = "Drover runs no artifact sandbox process: it fetches into a private staging directory and places the result beneath the allocation directory, always"
	for _, k := range []struct {
		attr *hcl.Attribute
		why  string
	}{
		{fa.HgTimeout, "Drover fetches no hg (Mercurial) sources"},
		{fa.GCSTimeout, "Drover fetches no gcs sources, which would use the client's own Google credentials"},
		{fa.DisableFilesystemIsolation, isolation},
		{fa.FilesystemIsolationExtraPaths, isolation},
	} {
		if k.attr != nil {
			return fmt.Errorf("%s: client artifact %s is not supported: %s (remove it)", rangePos(k.attr.Expr.Range()), k.attr.Name, k.why)
		}
	}
	return nil
}

func (fa *fileArtifact) applyTo(c *taskrunner.ArtifactConfig) error {
	if fa == nil {
		return nil
	}
	if n := fa.DecompressionFileCountLimit; n != nil {
		if *n < 0 {
			return fmt.Errorf("client artifact decompression_file_count_limit = %d: must be 0 (no limit) or more", *n)
		}
		c.DecompressionFileCountLimit = *n
	}
	if attr := fa.DecompressionSizeLimit; attr != nil {
		var s string
		if diags := gohcl.DecodeExpression(attr.Expr, nil, &s); diags.HasErrors() {
			return fmt.Errorf("parse config: %w", diags)
		}
		n, err := parseByteSize(s)
		if err != nil {
			return fmt.Errorf("%s: client artifact decompression_size_limit = %q: %w", rangePos(attr.Expr.Range()), s, err)
		}
		c.DecompressionSizeLimit = n
	}
	if err := fa.refusedKeys(); err != nil {
		return err
	}
	if attr := fa.HTTPMaxSize; attr != nil {
		var s string
		if diags := gohcl.DecodeExpression(attr.Expr, nil, &s); diags.HasErrors() {
			return fmt.Errorf("parse config: %w", diags)
		}
		n, err := parseByteSize(s)
		if err != nil {
			return fmt.Errorf("%s: client artifact http_max_size = %q: %w", rangePos(attr.Expr.Range()), s, err)
		}
		c.HTTPMaxSize = n
	}
	if v := fa.SetEnvironmentVariables; v != nil {
		c.SetEnvironmentVariables = nil
		for name := range strings.SplitSeq(*v, ",") {
			if name = strings.TrimSpace(name); name != "" {
				c.SetEnvironmentVariables = append(c.SetEnvironmentVariables, name)
			}
		}
	}
	if err := errors.Join(
		setDuration(&c.HTTPReadTimeout, fa.HTTPReadTimeout),
		setDuration(&c.GitTimeout, fa.GitTimeout),
		setDuration(&c.S3Timeout, fa.S3Timeout),
	); err != nil {
		return err
	}
	return fa.applyAddresses(c)
}

// applyAddresses sets the address policy from the lists the file sets,
// keeping what it leaves unset.
func (fa *fileArtifact) applyAddresses(c *taskrunner.ArtifactConfig) error {
	if fa.AddressDenylist == nil && fa.AddressAllowlist == nil {
		return nil
	}
	current := c.Addresses
	if current == nil {
		current = netguard.DefaultPolicy()
	}
	deny, allow := current.Denylist(), current.Allowlist()
	if fa.AddressDenylist != nil {
		deny = *fa.AddressDenylist
	}
	if fa.AddressAllowlist != nil {
		allow = *fa.AddressAllowlist
	}
	p, err := netguard.NewPolicy(deny, allow)
	if err != nil {
		return fmt.Errorf("client artifact address_denylist/address_allowlist: %w", err)
	}
	c.Addresses = p
	return nil
}

// byteUnits are the units a size may be written in: decimal (kB, MB, GB,
// TB, as Nomad reads "100GB") and binary (KiB, MiB, GiB, TiB).
var byteUnits = map[string]float64{
	"": 1, "b": 1,
	"k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12,
	"ki": 1 << 10, "kib": 1 << 10, "mi": 1 << 20, "mib": 1 << 20,
	"gi": 1 << 30, "gib": 1 << 30, "ti": 1 << 40, "tib": 1 << 40,
}

// parseByteSize reads a size such as "100GB", "512 MiB" or "1048576"
// (bytes). "0" is no limit.
func parseByteSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		i = len(s)
	}
	num, unit := s[:i], strings.ToLower(strings.TrimSpace(s[i:]))
	mult, ok := byteUnits[unit]
	if !ok || num == "" {
		return 0, fmt.Errorf("not a size: write a number of bytes with an optional unit (B, kB, MB, GB, TB, KiB, MiB, GiB, TiB), such as \"100GB\"")
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("not a size: %w", err)
	}
	bytes := math.Round(f * mult)
	if bytes >= math.MaxInt64 {
		return 0, fmt.Errorf("too large: the most is %d bytes", int64(math.MaxInt64))
	}
	return int64(bytes), nil
}

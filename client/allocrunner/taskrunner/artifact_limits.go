package taskrunner

import (
	"errors"
	"time"

	"github.com/drover-io/drover/internal/netguard"
)

// Defaults of the client's artifact limits, Nomad's (its timeouts are
// 30 minutes): far above any real
// artifact, low enough that a decompression bomb stops before it fills a
// disk of today or exhausts its inodes.
const (
	DefaultDecompressionSizeLimit      int64 = 100_000_000_000 // "100GB"
	DefaultDecompressionFileCountLimit int   = 4096
	DefaultHTTPMaxSize                 int64 = 100_000_000_000 // "100GB"
	DefaultFetchTimeout                      = 30 * time.Minute
)

// ArtifactConfig bounds where the client fetches artifacts from and what
// it unpacks from an artifact archive: the agent configuration's
// client { artifact { } } block.
type ArtifactConfig struct {
	// DecompressionSizeLimit is the most bytes one archive may unpack to,
	// its files' contents summed. Zero or less is no limit.
	DecompressionSizeLimit int64
	// DecompressionFileCountLimit is the most entries (files,
	// directories, links) one archive may hold. Zero or less is no limit.
	DecompressionFileCountLimit int
	// Addresses says which addresses an artifact may be fetched from
	// (address_denylist and address_allowlist). Nil is
	// netguard.DefaultPolicy.
	Addresses *netguard.Policy

	// HTTPReadTimeout bounds the download of one http(s) artifact
	// (http_read_timeout); HTTPMaxSize its size (http_max_size). Zero
	// is no bound.
	HTTPReadTimeout time.Duration
	HTTPMaxSize     int64
	// GitTimeout and S3Timeout bound a clone and an object download
	// (git_timeout, s3_timeout). Zero is no bound.
	GitTimeout, S3Timeout time.Duration
	// SetEnvironmentVariables names the agent's environment variables
	// that git gets (set_environment_variables); it gets a minimal
	// environment besides.
	SetEnvironmentVariables []string
}

// DefaultArtifactConfig returns the limits a client has unless its
// configuration says otherwise.
func DefaultArtifactConfig() *ArtifactConfig {
	return &ArtifactConfig{
		DecompressionSizeLimit:      DefaultDecompressionSizeLimit,
		DecompressionFileCountLimit: DefaultDecompressionFileCountLimit,
		Addresses:                   netguard.DefaultPolicy(),
		HTTPReadTimeout:             DefaultFetchTimeout,
		HTTPMaxSize:                 DefaultHTTPMaxSize,
		GitTimeout:                  DefaultFetchTimeout,
		S3Timeout:                   DefaultFetchTimeout,
	}
}

// AddressPolicy is the client's address policy: artifacts are fetched
// under it, and a service check the job points at an address of its
// choosing is held to it.
func (c *ArtifactConfig) AddressPolicy() *netguard.Policy { return c.addresses() }

// addresses is the policy artifacts are fetched under.
func (c *ArtifactConfig) addresses() *netguard.Policy {
	if c == nil || c.Addresses == nil {
		return netguard.DefaultPolicy()
	}
	return c.Addresses
}

// ErrArchiveLimit is wrapped by the error of an unpack stopped at a limit.
var ErrArchiveLimit = errors.New("archive exceeds the client's artifact limits")

package jobspec2

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

// parseTestdata parses testdata/name with cfg (nil means no variables).
func parseTestdata(t *testing.T, name string, cfg *ParseConfig) *api.Job {
	t.Helper()
	if cfg == nil {
		cfg = &ParseConfig{}
	}
	cfg.Path = filepath.Join("testdata", name)
	job, err := ParseWithConfig(cfg)
	must.NoError(t, err)
	must.NotNil(t, job)
	return job
}

// parseString parses src as the file name "job.hcl".
func parseString(t *testing.T, src string) (*api.Job, error) {
	t.Helper()
	return ParseWithConfig(&ParseConfig{Path: "job.hcl", Body: []byte(src)})
}

func mustParseString(t *testing.T, src string) *api.Job {
	t.Helper()
	job, err := parseString(t, src)
	must.NoError(t, err)
	return job
}

func ptr[T any](v T) *T { return &v }

func dur(d time.Duration) *time.Duration { return &d }

func pos(line, column, byteOffset int) hcl.Pos {
	return hcl.Pos{Line: line, Column: column, Byte: byteOffset}
}

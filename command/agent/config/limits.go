package config

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/zclconf/go-cty/cty"

	"github.com/drover-io/drover/jobspec2"
	"github.com/drover-io/drover/structs"
)

// LimitsConfig is the agent's limits block: what one client, one request
// or one job may cost the agent. Every request is held to them at the
// door, before anything reaches raft, and each refusal names the limit.
// website/content/docs/configuration/limits.md says why each default is
// what it is.
//
// To add a limit: a field here, its default in DefaultLimitsConfig, its
// key in fileLimits and applyTo, its check in validate, and its line in
// the documentation.
type LimitsConfig struct {
	// HTTPMaxConnsPerClient caps the HTTP connections open at once from
	// one IP address (Nomad's http_max_conns_per_client); 0 is no cap.
	HTTPMaxConnsPerClient int
	// HTTPReadHeaderTimeout, HTTPReadTimeout, HTTPWriteTimeout and
	// HTTPIdleTimeout are the HTTP server's timeouts: for a request's
	// headers, for the whole request, for the handler and its response,
	// and for a kept-alive connection between requests. Zero is none.
	// Blocking queries and streams are exempt from the write timeout (see
	// longLivedWriter).
	HTTPReadHeaderTimeout time.Duration
	HTTPReadTimeout       time.Duration
	HTTPWriteTimeout      time.Duration
	HTTPIdleTimeout       time.Duration
	// HTTPSHandshakeTimeout bounds a new HTTPS connection's TLS handshake
	// (Nomad's https_handshake_timeout); zero leaves it to the HTTP
	// timeouts above.
	HTTPSHandshakeTimeout time.Duration
	// HTTPMaxBodySize bounds the body of a request that carries no job
	// or jobspec, in bytes.
	HTTPMaxBodySize int64

	// RPCMaxConnsPerClient caps the connections to a server's RPC port
	// open at once from one IP address (Nomad's
	// rpc_max_conns_per_client); 0 is no cap. RPCHandshakeTimeout bounds
	// how long a new RPC connection may take to say what it carries and
	// prove who its peer is (Nomad's rpc_handshake_timeout).
	RPCMaxConnsPerClient int
	RPCHandshakeTimeout  time.Duration

	// JobMaxCount, JobMaxGroups, JobMaxTasksPerGroup and JobMaxSize bound
	// one job (structs.JobLimits).
	JobMaxCount         int
	JobMaxGroups        int
	JobMaxTasksPerGroup int
	JobMaxSize          int64

	// HCLMaxSize, HCLMaxDepth, HCLMaxEvalWork and HCLEvalTimeout bound
	// parsing one jobspec (jobspec2.Limits).
	HCLMaxSize     int64
	HCLMaxDepth    int
	HCLMaxEvalWork int64
	HCLEvalTimeout time.Duration
}

// DefaultLimitsConfig is the limits block of a configuration that sets
// none.
func DefaultLimitsConfig() LimitsConfig {
	hcl := jobspec2.DefaultLimits()
	job := structs.DefaultJobLimits()
	return LimitsConfig{
		HTTPMaxConnsPerClient: 100,
		HTTPReadHeaderTimeout: 10 * time.Second,
		HTTPReadTimeout:       time.Minute,
		HTTPWriteTimeout:      2 * time.Minute,
		HTTPIdleTimeout:       2 * time.Minute,
		HTTPSHandshakeTimeout: 5 * time.Second,
		HTTPMaxBodySize:       1 << 20,
		RPCMaxConnsPerClient:  100,
		RPCHandshakeTimeout:   5 * time.Second,

		JobMaxCount:         job.MaxCount,
		JobMaxGroups:        job.MaxGroups,
		JobMaxTasksPerGroup: job.MaxTasksPerGroup,
		JobMaxSize:          int64(job.MaxSize),

		HCLMaxSize:     int64(hcl.MaxSize),
		HCLMaxDepth:    hcl.MaxDepth,
		HCLMaxEvalWork: hcl.MaxEvalWork,
		HCLEvalTimeout: hcl.EvalTimeout,
	}
}

// JobLimits are the limits every job this agent takes in is held to.
func (l LimitsConfig) JobLimits() structs.JobLimits {
	return structs.JobLimits{
		MaxCount:         l.JobMaxCount,
		MaxGroups:        l.JobMaxGroups,
		MaxTasksPerGroup: l.JobMaxTasksPerGroup,
		MaxSize:          int(l.JobMaxSize),
	}
}

// HCLLimits are the limits of parsing a jobspec for /v1/jobs/parse.
func (l LimitsConfig) HCLLimits() jobspec2.Limits {
	return jobspec2.Limits{
		MaxSize:     int(l.HCLMaxSize),
		MaxDepth:    l.HCLMaxDepth,
		MaxEvalWork: l.HCLMaxEvalWork,
		EvalTimeout: l.HCLEvalTimeout,
	}
}

// maxLimitSize keeps sizes within what an int holds on every platform and
// far below what one request could ever be allowed to cost.
const maxLimitSize = 1 << 30

// validate reports every problem with the limits, each under its key.
func (l LimitsConfig) validate() []error {
	var errs []error
	atLeast := func(name string, v, least int64) {
		if v < least {
			errs = append(errs, fmt.Errorf("limits.%s must be at least %d, not %d", name, least, v))
		}
	}
	atLeast("http_max_conns_per_client", int64(l.HTTPMaxConnsPerClient), 0)
	atLeast("rpc_max_conns_per_client", int64(l.RPCMaxConnsPerClient), 0)
	if l.RPCHandshakeTimeout <= 0 {
		errs = append(errs, fmt.Errorf("limits.rpc_handshake_timeout must be positive, not %s", l.RPCHandshakeTimeout))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"http_read_header_timeout", l.HTTPReadHeaderTimeout},
		{"http_read_timeout", l.HTTPReadTimeout},
		{"http_write_timeout", l.HTTPWriteTimeout},
		{"http_idle_timeout", l.HTTPIdleTimeout},
		{"https_handshake_timeout", l.HTTPSHandshakeTimeout},
	} {
		if d.v < 0 {
			errs = append(errs, fmt.Errorf("limits.%s must not be negative, not %s", d.name, d.v))
		}
	}
	atLeast("job_max_count", int64(l.JobMaxCount), 1)
	atLeast("job_max_groups", int64(l.JobMaxGroups), 1)
	atLeast("job_max_tasks_per_group", int64(l.JobMaxTasksPerGroup), 1)
	atLeast("hcl_max_depth", int64(l.HCLMaxDepth), 1)
	atLeast("hcl_max_eval_work", l.HCLMaxEvalWork, 1)
	if l.HCLEvalTimeout <= 0 {
		errs = append(errs, fmt.Errorf("limits.hcl_eval_timeout must be positive, not %s", l.HCLEvalTimeout))
	}
	for _, s := range []struct {
		name string
		v    int64
	}{
		{"http_max_body_size", l.HTTPMaxBodySize},
		{"job_max_size", l.JobMaxSize},
		{"hcl_max_size", l.HCLMaxSize},
	} {
		if s.v < 1 || s.v > maxLimitSize {
			errs = append(errs, fmt.Errorf("limits.%s must be between 1 byte and 1GiB, not %d bytes", s.name, s.v))
		}
	}
	return errs
}

// fileLimits is the limits block of one configuration file.
type fileLimits struct {
	HTTPMaxConnsPerClient *int           `hcl:"http_max_conns_per_client,optional"`
	HTTPReadHeaderTimeout *hcl.Attribute `hcl:"http_read_header_timeout,optional"`
	HTTPReadTimeout       *hcl.Attribute `hcl:"http_read_timeout,optional"`
	HTTPWriteTimeout      *hcl.Attribute `hcl:"http_write_timeout,optional"`
	HTTPIdleTimeout       *hcl.Attribute `hcl:"http_idle_timeout,optional"`
	HTTPMaxBodySize       *hcl.Attribute `hcl:"http_max_body_size,optional"`
	HTTPSHandshakeTimeout *hcl.Attribute `hcl:"https_handshake_timeout,optional"`
	RPCMaxConnsPerClient  *int           `hcl:"rpc_max_conns_per_client,optional"`
	RPCHandshakeTimeout   *hcl.Attribute `hcl:"rpc_handshake_timeout,optional"`

	JobMaxCount         *int           `hcl:"job_max_count,optional"`
	JobMaxGroups        *int           `hcl:"job_max_groups,optional"`
	JobMaxTasksPerGroup *int           `hcl:"job_max_tasks_per_group,optional"`
	JobMaxSize          *hcl.Attribute `hcl:"job_max_size,optional"`

	HCLMaxSize     *hcl.Attribute `hcl:"hcl_max_size,optional"`
	HCLMaxDepth    *int           `hcl:"hcl_max_depth,optional"`
	HCLMaxEvalWork *int64         `hcl:"hcl_max_eval_work,optional"`
	HCLEvalTimeout *hcl.Attribute `hcl:"hcl_eval_timeout,optional"`
}

func (fl *fileLimits) applyTo(l *LimitsConfig) error {
	if fl == nil {
		return nil
	}
	setInt(&l.HTTPMaxConnsPerClient, fl.HTTPMaxConnsPerClient)
	setInt(&l.RPCMaxConnsPerClient, fl.RPCMaxConnsPerClient)
	setInt(&l.JobMaxCount, fl.JobMaxCount)
	setInt(&l.JobMaxGroups, fl.JobMaxGroups)
	setInt(&l.JobMaxTasksPerGroup, fl.JobMaxTasksPerGroup)
	setInt(&l.HCLMaxDepth, fl.HCLMaxDepth)
	if fl.HCLMaxEvalWork != nil {
		l.HCLMaxEvalWork = *fl.HCLMaxEvalWork
	}
	return errors.Join(
		setDuration(&l.HTTPReadHeaderTimeout, fl.HTTPReadHeaderTimeout),
		setDuration(&l.HTTPReadTimeout, fl.HTTPReadTimeout),
		setDuration(&l.HTTPWriteTimeout, fl.HTTPWriteTimeout),
		setDuration(&l.HTTPIdleTimeout, fl.HTTPIdleTimeout),
		setDuration(&l.HTTPSHandshakeTimeout, fl.HTTPSHandshakeTimeout),
		setDuration(&l.RPCHandshakeTimeout, fl.RPCHandshakeTimeout),
		setDuration(&l.HCLEvalTimeout, fl.HCLEvalTimeout),
		setSize(&l.HTTPMaxBodySize, fl.HTTPMaxBodySize),
		setSize(&l.JobMaxSize, fl.JobMaxSize),
		setSize(&l.HCLMaxSize, fl.HCLMaxSize),
	)
}

// setSize reads a size in bytes from attr: a whole number of bytes
// (4194304) or a string with a unit ("4MiB", "512KiB", "1MB", "100B").
func setSize(dst *int64, attr *hcl.Attribute) error {
	if attr == nil {
		return nil
	}
	val, diags := attr.Expr.Value(nil)
	if diags.HasErrors() {
		return fmt.Errorf("parse config: %w", diags)
	}
	var n int64
	var err error
	switch {
	case val.Type() == cty.Number && val.IsKnown() && !val.IsNull():
		var i int64
		if diags := gohcl.DecodeExpression(attr.Expr, nil, &i); diags.HasErrors() {
			err = errors.New("not a whole number of bytes")
		}
		n = i
	case val.Type() == cty.String && val.IsKnown() && !val.IsNull():
		n, err = parseSize(val.AsString())
	default:
		err = errors.New("not a size")
	}
	if err != nil {
		return fmt.Errorf("%s: %s: %v (use a number of bytes or a string such as \"4MiB\" or \"512KiB\")", rangePos(attr.Expr.Range()), attr.Name, err)
	}
	*dst = n
	return nil
}

// sizeUnits are the units parseSize knows, longest suffix first so that
// "KiB" is not read as "B".
var sizeUnits = []struct {
	suffix string
	factor int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
	{"KB", 1000}, {"MB", 1000 * 1000}, {"GB", 1000 * 1000 * 1000},
	{"B", 1},
}

// parseSize reads "4MiB", "1MB", "512KiB" or a bare "1024" (bytes).
func parseSize(s string) (int64, error) {
	num, factor := strings.TrimSpace(s), int64(1)
	for _, u := range sizeUnits {
		if n, ok := strings.CutSuffix(num, u.suffix); ok {
			num, factor = strings.TrimSpace(n), u.factor
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a size", s)
	}
	if n > math.MaxInt64/factor {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return n * factor, nil
}

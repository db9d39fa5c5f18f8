package jobspec2

import (
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/drover-io/drover/api"
)

// jobDeadline decodes a job's deadline: an RFC 3339 instant
// ("2026-12-08T06:00:00Z"), or a duration ("2h"), which the server
// accepts only on a periodic or parameterized job: the time after each
// launch.
func (d *decoder) jobDeadline(attr *hcl.Attribute) *api.JobDeadline {
	s := d.string(attr)
	if s == nil {
		return nil
	}
	if at, err := time.Parse(time.RFC3339Nano, *s); err == nil {
		return &api.JobDeadline{At: at.UnixNano()}
	}
	if dur, err := time.ParseDuration(*s); err == nil {
		return &api.JobDeadline{AfterLaunch: dur}
	}
	d.add(errorAt(attr.Expr.Range(), "Invalid deadline",
		fmt.Sprintf("Attribute %q must be an RFC 3339 instant such as \"2026-12-08T06:00:00Z\", or for a periodic or parameterized job a duration after each launch such as \"2h\": %q is neither.",
			attr.Name, *s)))
	return nil
}

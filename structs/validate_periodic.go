package structs

import (
	"time"

	"github.com/hashicorp/cronexpr"
)

// validate checks an enabled periodic block; a disabled one launches
// nothing and is not checked, as in Nomad.
func (p *PeriodicConfig) validate(probs *problems, jobType string) {
	if p == nil || !p.Enabled {
		return
	}
	const where = "Job periodic"
	if jobType != JobTypeBatch && jobType != JobTypeSysbatch {
		probs.add(where, "Job type %q does not allow periodic; only batch and sysbatch jobs may be periodic", jobType)
	}
	if p.SpecType != PeriodicSpecCron {
		probs.add(where, "spec_type must be %q, got %q", PeriodicSpecCron, p.SpecType)
		return
	}
	switch {
	case p.Spec == "" && len(p.Specs) == 0:
		probs.add(where, "Missing cron spec")
	case p.Spec != "" && len(p.Specs) > 0:
		probs.add(where, "Set either crons or cron, not both")
	}
	for _, spec := range p.CronSpecs() {
		if _, err := cronexpr.Parse(spec); err != nil {
			probs.add(where, "Invalid cron spec %q: %w", spec, err)
		}
	}
	if _, err := time.LoadLocation(p.TimeZone); err != nil {
		probs.add(where, "Invalid time_zone %q: %w", p.TimeZone, err)
	}
}

// CronSpecs returns the block's cron expressions: Spec, or else Specs.
func (p *PeriodicConfig) CronSpecs() []string {
	if p.Spec != "" {
		return []string{p.Spec}
	}
	return p.Specs
}

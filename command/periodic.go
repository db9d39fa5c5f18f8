package command

import (
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/cronexpr"

	"github.com/drover-io/drover/api"
)

// nextLaunch returns when a periodic job next launches after now: the
// earliest next time of its cron specs, read in its time zone (UTC unless
// it names one). The zero time means that no spec ever fires again.
func nextLaunch(p *api.PeriodicConfig, now time.Time) (time.Time, error) {
	if p == nil {
		return time.Time{}, errors.New("job is not periodic")
	}
	if p.SpecType != nil && *p.SpecType != "" && *p.SpecType != "cron" {
		return time.Time{}, fmt.Errorf("periodic spec type %q is not supported", *p.SpecType)
	}
	loc := time.UTC
	if p.TimeZone != nil && *p.TimeZone != "" {
		var err error
		if loc, err = time.LoadLocation(*p.TimeZone); err != nil {
			return time.Time{}, fmt.Errorf("periodic time zone %q: %w", *p.TimeZone, err)
		}
	}
	var specs []string
	if p.Spec != nil && *p.Spec != "" {
		specs = append(specs, *p.Spec)
	}
	specs = append(specs, p.Specs...)
	if len(specs) == 0 {
		return time.Time{}, errors.New("periodic job has no cron spec")
	}

	var next time.Time
	for _, spec := range specs {
		expr, err := cronexpr.Parse(spec)
		if err != nil {
			return time.Time{}, fmt.Errorf("periodic cron spec %q: %w", spec, err)
		}
		t := expr.Next(now.In(loc))
		if !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	return next, nil
}

package command

import (
	"flag"
	"io"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

func TestParseNamespaceSpec_timeLimits(t *testing.T) {
	ns, err := parseNamespaceSpec([]byte(`
name = "batch"
time_limits {
  max_run_duration_default     = "1h"
  max_run_duration_max         = "4h"
  alloc_deadline_extension_max = "30m"
}
`), "batch.hcl")
	must.NoError(t, err)
	must.Eq(t, &api.NamespaceTimeLimits{
		MaxRunDurationDefault:     time.Hour,
		MaxRunDurationMax:         4 * time.Hour,
		AllocDeadlineExtensionMax: 30 * time.Minute,
	}, ns.TimeLimits)

	none, err := parseNamespaceSpec([]byte(`name = "plain"`), "plain.hcl")
	must.NoError(t, err)
	must.Nil(t, none.TimeLimits)

	_, err = parseNamespaceSpec([]byte(`
name = "bad"
time_limits { max_run_duration_max = "forever" }
`), "bad.hcl")
	must.EqError(t, err, `parse namespace specification: time_limits: max_run_duration_max must be a duration such as "1h": "forever" is not one`)

	_, err = parseNamespaceSpec([]byte(`
name = "bad"
time_limits { max_run = "1h" }
`), "bad.hcl")
	must.ErrorContains(t, err, `An argument named "max_run" is not expected here`)
}

func TestTimeLimitFlags(t *testing.T) {
	parse := func(args ...string) (*timeLimitFlags, error) {
		var f timeLimitFlags
		fs := flag.NewFlagSet("namespace apply", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		f.register(fs)
		return &f, fs.Parse(args)
	}
	f, err := parse("-max-run-duration-max", "2h", "-alloc-deadline-extension-max", "0")
	must.NoError(t, err)
	ns := &api.Namespace{Name: "n", TimeLimits: &api.NamespaceTimeLimits{MaxRunDurationDefault: time.Hour, AllocDeadlineExtensionMax: time.Minute}}
	f.apply(ns)
	must.Eq(t, &api.NamespaceTimeLimits{MaxRunDurationDefault: time.Hour, MaxRunDurationMax: 2 * time.Hour}, ns.TimeLimits,
		must.Sprint("the limits not given stay; 0 removes one"))

	none, err := parse()
	must.NoError(t, err)
	plain := &api.Namespace{Name: "plain"}
	none.apply(plain)
	must.Nil(t, plain.TimeLimits)

	_, err = parse("-max-run-duration-max", "soon")
	must.ErrorContains(t, err, `"soon" is not a duration such as "1h"`)
	_, err = parse("-max-run-duration-default", "-1h")
	must.ErrorContains(t, err, "-1h0m0s must not be negative")

	must.Eq(t, []string{"Default max_run_duration|1h0m0s", "Ceiling of max_run_duration|2h0m0s"}, timeLimitRows(ns.TimeLimits))
}

func TestPlacementReasons_givenUp(t *testing.T) {
	m := &api.AllocationMetric{NodesEvaluated: 3, GivenUp: "cannot finish by 2026-12-08T06:00:00Z"}
	must.Eq(t, []string{"Not started, given up: cannot finish by 2026-12-08T06:00:00Z"}, placementReasons(m, false))
}
